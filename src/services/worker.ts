// `payrecon worker`: runs queued jobs (SCHEDULE_MODE=queue) until SIGTERM/SIGINT; any number of them, on any machines sharing the Postgres.
import crypto from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { EventEmitter } from 'node:events';
import { run, type Runner, type WorkerEvents } from 'graphile-worker';
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import { untilAborted } from '../runtime/until-aborted.ts';
import { loadConfig } from '../config/config.ts';
import { accountFor } from '../config/accounts.ts';
import { ConfigError } from '../config/errors.ts';
import { beat } from '../db/queue.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { installQueue, queueLogger } from '../worker/install.ts';
import { keepBeating, type WorkerIdentity } from '../worker/heartbeat.ts';
import { nudgeAfterBatches } from '../worker/nudge-after-batch.ts';
import { TASKS } from './queue-plan.ts';
import { workerTasks } from './worker-tasks.ts';

export interface WorkerJobOptions {
  /** Resolves (with a reason) when the worker should stop; default: the first SIGTERM or SIGINT. */
  stopWhen?: Promise<string>;
  /** Told this process's identity once it beats and takes jobs (tests). */
  onStarted?: (me: WorkerIdentity) => void;
}

export interface WorkerJobResult {
  exitCode: number;
  /** 'presumed_dead': this process was silent past WORKER_LOCK_TIMEOUT_SECONDS, its jobs were handed on; it stopped. */
  ended: 'stopped' | 'presumed_dead';
}

export async function workerJob(options: WorkerJobOptions = {}, context: JobContextOptions = {}): Promise<WorkerJobResult> {
  const config = context.config ?? loadConfig();
  if (!config.DATABASE_URL) {
    throw new ConfigError([
      'DATABASE_URL: `payrecon worker` needs a Postgres server the scheduler shares; the embedded database runs every job inside `payrecon schedule`',
    ]);
  }
  const connectionString = config.DATABASE_URL;
  const stop = new AbortController();
  void options.stopWhen?.then((reason) => stop.abort(reason));
  return withJob('worker', { ...context, config, signal: options.stopWhen ? stop.signal : undefined, stoppable: true }, async (deps) => {
    const { db, logger } = deps;
    const queueSchema = await installQueue(db, connectionString, logger);
    // A batch's account names its provider client: that account's MerchantID, secret and budget.
    const clientFor = (id: string) => deps.providerFor(accountFor(config, id));
    const instance = `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
    const me: { -readonly [K in keyof WorkerIdentity]: WorkerIdentity[K] } = {
      instance,
      host: os.hostname(),
      pid: process.pid,
      workerIds: [],
    };
    await beat(db.knex, me, new Date(), true);
    const pool = new pg.Pool({ connectionString, max: config.WORKER_CONCURRENCY + 2, application_name: 'payrecon-worker' });
    // An idle connection dropped by the server is pg's 'error' on the pool: logged, the pool replaces it.
    const connectionFailed = (err: Error) => logger.warn({ err: err.message }, 'a queue connection failed');
    pool.on('error', connectionFailed);
    pool.on('connect', (client) => client.on('error', connectionFailed));
    // graphile-worker locks jobs under its pool's id: the heartbeat names it, so a dead process's jobs can be unlocked.
    const events: WorkerEvents = new EventEmitter();
    events.on('pool:create', ({ workerPool }) => {
      me.workerIds = [...me.workerIds, workerPool.id];
    });
    const beating = new AbortController();
    const heartbeat = keepBeating(
      { db, queueSchema, logger, now: () => new Date() },
      me,
      config.WORKER_LOCK_TIMEOUT_SECONDS * 1000,
      beating.signal,
    );
    nudgeAfterBatches(events, TASKS.reconcileBatch, deps.signal);
    let runner: Runner | undefined;
    try {
      runner = await run({
        pgPool: pool,
        schema: queueSchema,
        concurrency: config.WORKER_CONCURRENCY,
        noHandleSignals: true,
        pollInterval: 1000,
        // payrecon's schedules are its scheduler's: no crontab file is looked for in the working directory.
        parsedCronItems: [],
        events,
        taskList: workerTasks({ config, db, logger, clientFor, metrics: deps.metrics, signal: deps.signal, instance }),
        logger: queueLogger(logger),
      });
      await beat(db.knex, me, new Date(), false);
      logger.info({ instance, workerIds: me.workerIds, queueSchema }, 'worker started');
      options.onStarted?.(me);
      const ended = await Promise.race([untilAborted(deps.signal).then(() => 'stopped' as const), heartbeat]);
      if (ended === 'presumed_dead')
        logger.error({ instance }, 'this worker was presumed dead (silent past WORKER_LOCK_TIMEOUT_SECONDS); stopping');
      else logger.info({ reason: String(deps.signal.reason) }, 'stopping: finishing the jobs in flight');
      await runner.stop();
      return { exitCode: ended === 'stopped' ? EXIT.OK : EXIT.INCOMPLETE, ended };
    } finally {
      beating.abort();
      await heartbeat;
      await runner?.promise.catch(() => undefined);
      await pool.end();
    }
  });
}
