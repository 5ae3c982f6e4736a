import { printErr } from '../log/terminal.ts';
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../config/config.ts';
import { secretValues } from '../config/redact.ts';
import { openDatabase, type Db } from '../db/connect.ts';
import { databaseChoiceHint, describeDatabase } from '../db/describe.ts';
import { assertMigrated } from '../db/migrate.ts';
import { routeStrayOutput } from '../log/stray-output.ts';
import { createLogger } from '../log/logger.ts';
import type { ProviderClient, ProviderClientOptions } from '../provider/client.ts';
import type { PayreconMetrics } from '../metrics/metrics.ts';
import { isUsageError, JobFailedError, oneLine } from './job-failure.ts';
import { accountFor, configuredAccounts } from '../config/accounts.ts';
import type { Account } from '../domain/account.ts';

/** What a caller may hand a job: the scheduler and the demo share one config, logger and pool. */
export interface JobContextOptions {
  config?: Config;
  logger?: Logger;
  /** An already open database (the demo and the scheduler share one); the job leaves it open. */
  db?: Db;
  /** The long-running process's metrics (schedule, webhook serve, console); one-shot commands have none. */
  metrics?: PayreconMetrics;
}

export interface WithJobOptions extends JobContextOptions {
  /** Overrides for the provider client (tests and the demo point it at a sandbox). */
  provider?: Partial<ProviderClientOptions>;
  /** The caller's stop request (the scheduler's shutdown). Without one, a stoppable job listens to SIGTERM/SIGINT. */
  signal?: AbortSignal;
  /** The job checkpoints on a stop request; others keep the default signal behaviour (exit at once). */
  stoppable?: boolean;
  /** The account `--account` names; unset: the only configured account (provider() refuses when there are several). */
  account?: string;
  /** Only `migrate` runs on an unmigrated database. */
  requireMigrated?: boolean;
}

/** Everything a job needs, built by withJob and closed by it. */
export interface JobDeps {
  config: Config;
  /** Scoped to the job, with an invocation id tying one process's lines together. */
  logger: Logger;
  db: Db;
  /** Aborted on a stop request: finish the work in flight, checkpoint, return. */
  signal: AbortSignal;
  /** The provider client of the job's account (options.account, or the only one), built on first use and closed when the job ends. */
  provider(): Promise<ProviderClient>;
  /** The provider client of one account (its base URL, MerchantID, secret and rate limit), one per account per job. */
  providerFor(account: Account): Promise<ProviderClient>;
  /** The process's metrics, when it exposes any. */
  metrics?: PayreconMetrics;
  /** Leave the database open at the end (the scheduler, exiting while a job still holds connections). */
  leaveOpen(): void;
}

/**
 * The one job wrapper: config, logger, database, provider client and stop signal, all built
 * inside its try so whatever fails closes what was opened. A usage or configuration error keeps
 * its exit status 3; any other failure becomes one line naming the job and the database
 * (JobFailedError, exit 2), and a `run_failed` alert is stored when the database still answers.
 */
export async function withJob<T>(job: string, opts: WithJobOptions, fn: (deps: JobDeps) => Promise<T>): Promise<T> {
  const config = opts.config ?? loadConfig();
  const root = opts.logger ?? createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, secrets: secretValues(config) });
  // This process's own logger: Node's and knex's warnings go through it too (a caller's logger is the caller's business).
  if (!opts.logger) routeStrayOutput(root);
  const logger = root.child({ job, invocation: crypto.randomUUID().slice(0, 8) });
  const database = describeDatabase(config);
  const stop = stopSignal(opts, logger);
  let db: Db | undefined = opts.db;
  const clients = new Map<string, Promise<ProviderClient>>();
  let leaveOpen = false;
  try {
    if (!db) {
      // Every command says which database it works on: the first thing to check when numbers look wrong.
      // A plain line for a person at a terminal; otherwise stderr carries JSON log lines only.
      if (process.stderr.isTTY) printErr(`payrecon ${job}: database ${database}\n`);
      else logger.info({ database }, 'database');
      db = await openDatabase(config, { applicationName: `payrecon-${job}` });
    }
    if (opts.requireMigrated !== false) await assertMigrated(db, { database, hint: databaseChoiceHint(config) });
    const deps: JobDeps = {
      config,
      logger,
      db,
      signal: stop.signal,
      metrics: opts.metrics,
      // The account's rate limit is shared with every other process on this database.
      // The stop signal reaches the client's waits (Retry-After, backoff): a throttled run still stops promptly.
      // The HTTP client (undici) and alert delivery load here, on first use: most commands never call the provider.
      provider: async () => deps.providerFor(accountFor(config, opts.account)),
      providerFor: (account) => {
        let client = clients.get(account.id);
        if (!client) {
          client = import('../provider/from-config.ts').then(({ createAccountClient }) =>
            createAccountClient(config, account, {
              logger,
              slotStore: db!.engine.slotStore(),
              signal: stop.signal,
              onRequest: opts.metrics && ((op, status, seconds) => opts.metrics!.providerRequest(op, status, seconds)),
              ...opts.provider,
            }),
          );
          clients.set(account.id, client);
        }
        return client;
      },
      leaveOpen: () => void (leaveOpen = true),
    };
    return await fn(deps);
  } catch (err) {
    if (isUsageError(err) || err instanceof JobFailedError) throw err;
    const failure = new JobFailedError(job, database, oneLine(err, secretValues(config)));
    // A job of one named account (several configured) fails as that account's: its alert is kept apart.
    const account = opts.account !== undefined && configuredAccounts(config).length > 1 ? { id: opts.account, apart: true } : undefined;
    if (db) await storeFailureAlert(job, failure, { db, config, logger, ...(account ? { account } : {}) });
    throw failure;
  } finally {
    stop.dispose();
    for (const client of clients.values()) await client.then((c) => c.close()).catch(() => undefined);
    if (db && !opts.db && !leaveOpen) await db.close();
  }
}

/** The `run_failed` alert of a failed job; its modules load only when a job fails. */
async function storeFailureAlert(
  job: string,
  failure: JobFailedError,
  deps: { db: Db; config: Config; logger: Logger; account?: { id: string; apart: boolean } },
): Promise<void> {
  const [{ raiseAndDeliver }, { alertForFailedRun }] = await Promise.all([import('./alerting.ts'), import('../notify/alert-builders.ts')]);
  await raiseAndDeliver({ ...deps, now: () => new Date(), job }, [alertForFailedRun(job, 'failed', failure.message)]);
}

/** The caller's signal, or for a stoppable job the first SIGTERM/SIGINT (a second one exits at once). */
function stopSignal(opts: WithJobOptions, logger: Logger): { signal: AbortSignal; dispose(): void } {
  if (opts.signal) return { signal: opts.signal, dispose: () => undefined };
  const controller = new AbortController();
  if (!opts.stoppable) return { signal: controller.signal, dispose: () => undefined };
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    logger.warn({ signal: sig }, 'stopping: finishing the work in flight, then exiting');
    controller.abort(sig);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
