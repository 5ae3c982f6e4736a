import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../config/config.ts';
import { openDatabase, type Db } from '../db/connect.ts';
import { assertMigrated } from '../db/migrate.ts';
import { createLogger } from '../log/logger.ts';
import { secretValues } from '../config/redact.ts';

/** What every job entry needs: validated config, a logger scoped to the job, a migrated database. */
export interface JobContext {
  config: Config;
  logger: Logger;
  db: Db;
  close(): Promise<void>;
}

export interface JobContextOptions {
  config?: Config;
  logger?: Logger;
  /** An already open database (the demo and the scheduler share one). */
  db?: Db;
}

export async function openJobContext(job: string, opts: JobContextOptions = {}): Promise<JobContext> {
  const config = opts.config ?? loadConfig();
  const root = opts.logger ?? createLogger({ level: config.LOG_LEVEL, secrets: secretValues(config) });
  // invocation: ties one process's lines together even before a run row exists.
  const logger = root.child({ job, invocation: crypto.randomUUID().slice(0, 8) });
  const db = opts.db ?? (await openDatabase(config, { applicationName: `payrecon-${job}` }));
  try {
    await assertMigrated(db);
  } catch (err) {
    if (!opts.db) await db.close();
    throw err;
  }
  return { config, logger, db, close: async () => (opts.db ? undefined : db.close()) };
}

/** Runs fn with SIGTERM/SIGINT turned into an abort signal (a second signal exits at once). */
export async function withStopSignal<T>(fn: (signal: AbortSignal) => Promise<T>, logger?: Logger): Promise<T> {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    logger?.warn({ signal: sig }, 'stopping: finishing the batches in flight, then exiting');
    controller.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    return await fn(controller.signal);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
