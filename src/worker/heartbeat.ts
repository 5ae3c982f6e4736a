import type { Logger } from 'pino';
import { messageOf } from '../domain/errors.ts';
import type { Db } from '../db/connect.ts';
import { beat, reapSilentWorkers, removeHeartbeat } from '../db/queue.ts';
import { abortableSleep } from '../schedule/sleep.ts';

export interface WorkerIdentity {
  /** This process: host, pid and a random part (a restarted process is a new instance). */
  instance: string;
  host: string;
  pid: number;
  /** The ids graphile-worker locks this process's jobs under (its worker pool's), known once the runner starts. */
  workerIds: readonly string[];
}

/**
 * Beats every quarter of the lock timeout and reaps workers silent for longer: their rows go and the
 * jobs they held are unlocked, so another worker retries them (graphile-worker alone holds a dead
 * worker's job for 4 hours). Resolves when `stop` aborts, or with 'presumed_dead' when this process
 * finds its own row reaped (it was silent too long: a pause, a partition) and must stop taking work.
 */
export async function keepBeating(
  deps: { db: Db; queueSchema: string; logger: Logger; now: () => Date },
  me: WorkerIdentity,
  lockTimeoutMs: number,
  stop: AbortSignal,
): Promise<'stopped' | 'presumed_dead'> {
  const every = Math.max(250, Math.floor(lockTimeoutMs / 4));
  try {
    while (!stop.aborted) {
      await abortableSleep(every, stop);
      if (stop.aborted) break;
      try {
        if (!(await beat(deps.db.knex, me, deps.now(), false))) return 'presumed_dead';
        const reaped = await reapSilentWorkers(deps.db.knex, deps.queueSchema, new Date(deps.now().getTime() - lockTimeoutMs));
        if (reaped.length)
          deps.logger.warn({ reaped }, 'workers silent past WORKER_LOCK_TIMEOUT_SECONDS presumed dead; their jobs run again');
      } catch (err) {
        // A failed beat is retried at the next one; silence past the timeout is what hands the jobs on.
        deps.logger.warn({ err: messageOf(err) }, 'worker heartbeat failed');
      }
    }
    return 'stopped';
  } finally {
    await removeHeartbeat(deps.db.knex, me.instance).catch(() => undefined);
  }
}
