// What a `payrecon worker` runs for each kind of queued job: thin handlers over the jobs the scheduler runs in-process.
import type { JobHelpers, TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/connect.ts';
import { loadActiveBankCodes } from '../db/bank-codes.ts';
import type { PayreconMetrics } from '../metrics/metrics.ts';
import type { ProviderClient } from '../provider/client.ts';
import { executeBatch, type BatchJob } from '../reconcile/execute-batch.ts';
import { policyFromConfig } from '../reconcile/policy-from-config.ts';
import type { ScheduledJobName } from '../schedule/schedules.ts';
import { TASKS } from './queue-plan.ts';
import { configuredAccounts } from '../config/accounts.ts';
import { jobRunners } from './schedule-runners.ts';

export interface TaskDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** The provider client of one account (its MerchantID, secret and rate limit), one per account for the worker's life. */
  clientFor: (accountId: string) => Promise<ProviderClient>;
  metrics?: PayreconMetrics;
  /** Aborted when the worker stops (SIGTERM): a job in flight finishes or is retried later. */
  signal: AbortSignal;
  now?: () => Date;
  /** This worker process (host, pid, random): a batch's claim names it. */
  instance: string;
}

/** A job's outcome that did not do its work (failed, busy) fails the job, so the queue retries it with backoff. */
const DONE = new Set(['completed', 'skipped', 'already_done', 'off']);

export function workerTasks(deps: TaskDeps): TaskList {
  const { config, db } = deps;
  const now = deps.now ?? (() => new Date());
  const runners = jobRunners({ config, db, metrics: deps.metrics, now });
  const scheduled =
    (job: ScheduledJobName): TaskList[string] =>
    async (payload, helpers) => {
      const p = payload as { account?: string; scheduledFor?: string; date?: string };
      const logger = loggerFor(deps.logger, helpers, job, p.account);
      // Several accounts: a job of one account runs for it alone; one of the whole deployment ('*': bank codes,
      // prune) names none. One account: none named, the run exactly as in-process.
      const accounts = configuredAccounts(config);
      const named = accounts.length > 1 && p.account !== undefined && p.account !== '*' ? p.account : undefined;
      if (named !== undefined && !accounts.some((a) => a.id === named)) {
        // Queued before the account left ACCOUNTS_FILE: nothing of it to run, and never every account instead.
        logger.warn(`${job} job of account ${named}, which is no longer configured: nothing run`);
        return;
      }
      const account = named;
      const report = await runners[job]!({
        ...(account !== undefined ? { account } : {}),
        scheduledFor: p.scheduledFor ? new Date(p.scheduledFor) : now(),
        reason: 'scheduled',
        ...(p.date ? { date: p.date } : {}),
        signal: deps.signal,
        logger,
      });
      logger.info({ status: report.status, exitCode: report.exitCode, ...report.detail }, `${job} job finished`);
      if (report.exitCode !== 0 && !DONE.has(report.status)) throw new Error(`${job} ended ${report.status} (exit ${report.exitCode})`);
    };
  return {
    [TASKS.reconcileBatch]: async (payload, helpers) => {
      const job = payload as BatchJob;
      const logger = loggerFor(deps.logger, helpers, 'reconcile', job.account).child({ runId: job.runId, batch: job.batch });
      const policy = policyFromConfig(config, await loadActiveBankCodes(db.knex));
      const client = await deps.clientFor(job.account);
      const outcome = await executeBatch(
        {
          db,
          fetcher: client,
          policy,
          clock: now,
          logger,
          concurrency: config.RECON_CONCURRENCY,
          batchSize: config.RECON_BATCH_SIZE,
          webhooks: { expect: config.WEBHOOK_EXPECTED, marginMs: config.WEBHOOK_MISSING_MARGIN_MIN * 60_000 },
          onChecked: deps.metrics && ((direction, verdict, count) => deps.metrics!.orderChecked(direction, verdict, count)),
        },
        job,
        deps.instance,
      );
      // budgetSlotsExpired: this process's count for the account so far (slots reached too late, given up; rate-limit.ts).
      logger.info(
        { ...outcome, budgetSlotsExpired: client.expiredSlots, budgetSlotsPastOnArrival: client.expiredOnArrival },
        'reconcile batch finished',
      );
    },
    [TASKS.snapshot]: scheduled('snapshot'),
    [TASKS.bankCodes]: scheduled('bank-codes'),
    [TASKS.daily]: scheduled('daily'),
    [TASKS.prune]: scheduled('prune'),
  };
}

function loggerFor(logger: Logger, helpers: JobHelpers, job: string, account: string | undefined): Logger {
  return logger.child({ job, account: account ?? 'default', queueJob: helpers.job.id, attempt: helpers.job.attempts });
}
