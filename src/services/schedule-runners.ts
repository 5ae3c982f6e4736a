import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { configuredAccounts } from '../config/accounts.ts';
import { bankCodesAccount, forEachAccount } from './per-account.ts';
import type { Db } from '../db/connect.ts';
import { reconcileJob } from './reconcile.ts';
import { dayJobs } from './day-jobs.ts';
import { snapshotJob } from './snapshot.ts';
import { bankSyncJob } from './bank-codes.ts';
import { pruneJob } from './prune.ts';
import { dailyDateFor } from '../schedule/catch-up.ts';
import { runDaily } from '../schedule/daily.ts';
import type { InFlightCheck, JobRunner } from '../schedule/scheduler.ts';
import { findLockHolder, stalledHolder } from '../db/lock-holder.ts';
import { raiseAndDeliver } from '../runtime/alerting.ts';
import { alertForStalledRun } from '../notify/alert-builders.ts';
import { RECONCILE_JOB } from '../reconcile/reconcile.ts';
import type { ScheduledJobName } from '../schedule/schedules.ts';
import type { PayreconMetrics } from '../metrics/metrics.ts';
import { jobOutcome } from '../metrics/job-outcome.ts';

export interface RunnerDeps {
  config: Config;
  /** One pool shared by every job of this scheduler. */
  db: Db;
  now?: () => Date;
  /** The daily's wait for the reconcile lock (defaults: retry every 30 s for up to 2 h). */
  lockRetryMs?: number;
  lockWaitMs?: number;
  metrics?: PayreconMetrics;
}

/** The real jobs behind each schedule, each given the run's child logger and the shared pool. */
export function jobRunners(deps: RunnerDeps): Record<ScheduledJobName, JobRunner> {
  const { config, db } = deps;
  const now = deps.now ?? (() => new Date());
  const { metrics } = deps;
  const email = Boolean(config.SMTP_URL && config.REPORT_EMAIL_TO?.length);
  const several = configuredAccounts(config).length > 1;
  const runners: Record<ScheduledJobName, JobRunner> = {
    // Each account's sweep under its own lock, with its own client and budget (several: all at once).
    reconcile: async ({ logger, signal, account: named }) =>
      forEachAccount(config, named, async (account) => {
        const { exitCode, outcome } = await reconcileJob(
          { progress: false, stopSignal: signal, ...(account !== undefined ? { account } : {}) },
          { config, logger: accountLogger(logger, account), db, metrics },
        );
        const counts: Record<string, number> = { checked: outcome.runs.reduce((n, r) => n + r.checked, 0) };
        for (const r of outcome.runs) for (const [k, v] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + v;
        return { status: outcome.status, exitCode, counts, detail: { runIds: outcome.runs.map((r) => r.runId) } };
      }),
    snapshot: async ({ logger, account: named }) =>
      forEachAccount(config, named, async (account) => {
        const { exitCode, result } = await snapshotJob(account !== undefined ? { account } : {}, {
          config,
          logger: accountLogger(logger, account),
          db,
          metrics,
        });
        return { status: result.status, exitCode, detail: { runId: result.runId } };
      }),
    // One job whatever the accounts: bankCodesAccount says why.
    'bank-codes': async ({ logger }) => {
      const account = bankCodesAccount(config);
      const { exitCode, result } = await bankSyncJob(account !== undefined ? { account } : {}, { config, logger, db, metrics });
      return { status: result.status, exitCode, detail: { runId: result.runId } };
    },
    // One job whatever the accounts: RETENTION_DAYS is the deployment's, and a prune deletes rows and report
    // files by age across every table once; a pass per account would scan the same tables N times for nothing.
    prune: async ({ logger, signal }) => {
      const { exitCode, result } = await pruneJob({ signal }, { config, logger, db });
      return {
        status: result.status,
        exitCode,
        detail: { runId: 'runId' in result ? result.runId : null, tables: 'tables' in result ? result.tables : null },
      };
    },
    // Each account's day: its reconcile, then its report to its recipients, under its own daily lock.
    daily: async ({ logger, signal, scheduledFor, date, account: named }) =>
      forEachAccount(config, named, async (account) => {
        const log = accountLogger(logger, account);
        const result = await runDaily(
          {
            db,
            logger: log,
            now,
            signal,
            email,
            lockRetryMs: deps.lockRetryMs ?? 30_000,
            lockWaitMs: deps.lockWaitMs ?? 2 * 3_600_000,
            ...(several && account !== undefined ? { account } : {}),
            ...dayJobs({ config, logger: log, db, metrics }, { email, now, account }),
          },
          date ?? dailyDateFor(scheduledFor, config.REPORT_TIMEZONE),
        );
        const ok = result.status === 'completed' || result.status === 'skipped' || result.status === 'already_done';
        return {
          status: result.status,
          exitCode: ok && !result.error ? 0 : 2,
          detail: {
            runId: result.runId,
            date: result.date,
            reconcileRunIds: result.reconcileRunIds,
            reportVersion: result.report?.version,
            error: result.error,
          },
        };
      }),
  };
  return metrics ? countedRunners(runners, metrics) : runners;
}

/** Each run counted by its outcome (the daily's own reconcile and report are counted by dayJobs). */
function countedRunners(runners: Record<ScheduledJobName, JobRunner>, metrics: PayreconMetrics): Record<ScheduledJobName, JobRunner> {
  const counted =
    (job: ScheduledJobName, run: JobRunner): JobRunner =>
    async (ctx) => {
      try {
        const report = await run(ctx);
        metrics.jobFinished(job, jobOutcome(report.status, report.exitCode));
        return report;
      } catch (err) {
        metrics.jobFinished(job, 'failure');
        throw err;
      }
    };
  return Object.fromEntries(Object.entries(runners).map(([job, run]) => [job, counted(job as ScheduledJobName, run)])) as Record<
    ScheduledJobName,
    JobRunner
  >;
}

/** The run's lines name its account (several configured; one: the lines as before). */
function accountLogger(logger: Logger, account: string | undefined): Logger {
  return account === undefined ? logger : logger.child({ account });
}

/**
 * What the scheduler looks at when an occurrence finds the job's run still in flight here. Reconcile:
 * the liveness rule, as a later run in another process applies it (that run's lock is this process's).
 */
export function inFlightChecks(deps: Pick<RunnerDeps, 'config' | 'db' | 'now'>): Partial<Record<ScheduledJobName, InFlightCheck>> {
  const { config, db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    reconcile: async ({ logger }) => {
      // Several accounts: each account's run holds its own lock, so each is looked at.
      const accounts = configuredAccounts(config);
      const ids = accounts.length > 1 ? accounts.map((a) => a.id) : [undefined];
      for (const account of ids) {
        const stalled = stalledHolder(await findLockHolder(db, RECONCILE_JOB, account), now(), config.RUN_STALL_AFTER_SECONDS * 1000);
        if (!stalled) continue;
        logger.error({ lockHolder: stalled.description, stalledRunId: stalled.runId, account }, 'the reconcile run in flight is stalled');
        await raiseAndDeliver({ db, config, logger, now, job: RECONCILE_JOB, ...(account !== undefined ? { account } : {}) }, [
          alertForStalledRun(RECONCILE_JOB, stalled),
        ]);
      }
    },
  };
}
