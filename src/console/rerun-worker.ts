import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { withJobLock } from '../db/locks.ts';
import { claimNextRerun, failAbandonedReruns, finishRerun, setRerunPhase, type RerunRow } from '../db/console-reruns.ts';
import { reconcileThenReport, type DayReconcile, type DayReport } from '../schedule/daily.ts';
import { abortableSleep } from '../schedule/sleep.ts';
import { messageOf } from '../domain/errors.ts';

export interface RerunWorkerDeps {
  db: Db;
  logger: Logger;
  now: () => Date;
  /** reconcile --date D [--account ID] in this process (under the reconcile job's own lock). */
  reconcileDay: (date: string, signal: AbortSignal, account?: string) => Promise<DayReconcile>;
  /** report --date D [--account ID] in this process (under the report date's lock); never e-mailed from the console. */
  reportDay: (date: string, account?: string) => Promise<DayReport>;
  /** Several accounts are configured: a rerun runs its row's account; with one, no account is named, as before. */
  perAccount: boolean;
  /** How often the queue is looked at when idle. */
  pollMs: number;
  /** While another reconcile holds its lock, retry this often, for at most lockWaitMs. */
  lockRetryMs: number;
  lockWaitMs: number;
}

export interface RerunWorker {
  /** Look at the queue now instead of at the next poll (a rerun was just queued). */
  poke(): void;
  /** Stops taking reruns; a running one is stopped at its next checkpoint. Resolves when the loop ended. */
  stop(): Promise<void>;
}

/** The console's rerun job lock: one rerun at a time across every console process on the database. */
export const RERUN_JOB = 'console-rerun';

/**
 * The queue's worker, in the console process but never in a request: a loop that claims the
 * oldest queued rerun (a conditional update), runs reconcile then report for its day, and
 * records the outcome. Reruns are strictly one at a time (the loop, and a job lock across processes).
 */
export function startRerunWorker(deps: RerunWorkerDeps): RerunWorker {
  const stopping = new AbortController();
  let wake: AbortController = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let ran = false;
      try {
        const locked = await withJobLock(deps.db, RERUN_JOB, async () => {
          // Holding the lock, no live worker owns a 'running' rerun: those are a dead console's.
          await failAbandonedReruns(deps.db.knex, deps.now());
          const rerun = await claimNextRerun(deps.db.knex, deps.now());
          if (!rerun) return false;
          await runOne(deps, rerun, stopping.signal);
          return true;
        });
        ran = locked.acquired && locked.result === true;
      } catch (err) {
        deps.logger.error({ err: { message: messageOf(err) } }, 'rerun worker: could not take the queue; trying again');
      }
      if (!ran && !stopping.signal.aborted) {
        await abortableSleep(deps.pollMs, AbortSignal.any([stopping.signal, wake.signal])).catch(() => undefined);
        wake = new AbortController();
      }
    }
  })();
  return {
    poke: () => wake.abort(),
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}

async function runOne(deps: RerunWorkerDeps, rerun: RerunRow, signal: AbortSignal): Promise<void> {
  const account = deps.perAccount ? rerun.account : undefined;
  const log = deps.logger.child({ rerun: rerun.id, date: rerun.businessDate, ...(account !== undefined ? { account } : {}) });
  log.info({ requestedBy: rerun.requestedBy }, 'rerun started');
  let reconcileRunIds: string[] = [];
  try {
    const result = await reconcileThenReport(
      {
        db: deps.db,
        logger: log,
        now: deps.now,
        signal,
        lockRetryMs: deps.lockRetryMs,
        lockWaitMs: deps.lockWaitMs,
        reconcileDay: async (date, stop) => {
          const rec = await deps.reconcileDay(date, stop, account);
          reconcileRunIds = rec.runIds;
          return rec;
        },
        reportDay: async (date) => {
          await setRerunPhase(deps.db.knex, rerun.id, 'report', reconcileRunIds, deps.now());
          return deps.reportDay(date, account);
        },
      },
      rerun.businessDate,
      log,
    );
    await finishRerun(deps.db.knex, rerun.id, {
      state: result.status === 'completed' ? 'completed' : 'failed',
      reconcileRunIds: result.reconcileRunIds,
      reportVersion: result.report?.version ?? null,
      error: result.error,
      now: deps.now(),
    });
    log.info({ status: result.status, version: result.report?.version }, 'rerun finished');
  } catch (err) {
    await finishRerun(deps.db.knex, rerun.id, {
      state: 'failed',
      reconcileRunIds,
      reportVersion: null,
      error: messageOf(err),
      now: deps.now(),
    });
    log.error({ err: { message: messageOf(err) } }, 'rerun failed');
  }
}
