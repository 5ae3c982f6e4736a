import type { Config } from '../config/config.ts';
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
  const runners: Record<ScheduledJobName, JobRunner> = {
    reconcile: async ({ logger, signal }) => {
      const { exitCode, outcome } = await reconcileJob({ progress: false, stopSignal: signal }, { config, logger, db, metrics });
      const counts: Record<string, number> = { checked: outcome.runs.reduce((n, r) => n + r.checked, 0) };
      for (const r of outcome.runs) for (const [k, v] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + v;
      return { status: outcome.status, exitCode, counts, detail: { runIds: outcome.runs.map((r) => r.runId) } };
    },
    snapshot: async ({ logger }) => {
      const { exitCode, result } = await snapshotJob({}, { config, logger, db, metrics });
      return { status: result.status, exitCode, detail: { runId: result.runId } };
    },
    'bank-codes': async ({ logger }) => {
      const { exitCode, result } = await bankSyncJob({}, { config, logger, db, metrics });
      return { status: result.status, exitCode, detail: { runId: result.runId } };
    },
    prune: async ({ logger, signal }) => {
      const { exitCode, result } = await pruneJob({ signal }, { config, logger, db });
      return {
        status: result.status,
        exitCode,
        detail: { runId: 'runId' in result ? result.runId : null, tables: 'tables' in result ? result.tables : null },
      };
    },
    daily: async ({ logger, signal, scheduledFor, date }) => {
      const result = await runDaily(
        {
          db,
          logger,
          now,
          signal,
          email,
          lockRetryMs: deps.lockRetryMs ?? 30_000,
          lockWaitMs: deps.lockWaitMs ?? 2 * 3_600_000,
          ...dayJobs({ config, logger, db, metrics }, { email, now }),
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
    },
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

/**
 * What the scheduler looks at when an occurrence finds the job's run still in flight here. Reconcile:
 * the liveness rule, as a later run in another process applies it (that run's lock is this process's).
 */
export function inFlightChecks(deps: Pick<RunnerDeps, 'config' | 'db' | 'now'>): Partial<Record<ScheduledJobName, InFlightCheck>> {
  const { config, db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    reconcile: async ({ logger }) => {
      const stalled = stalledHolder(await findLockHolder(db, RECONCILE_JOB), now(), config.RUN_STALL_AFTER_SECONDS * 1000);
      if (!stalled) return;
      logger.error({ lockHolder: stalled.description, stalledRunId: stalled.runId }, 'the reconcile run in flight is stalled');
      await raiseAndDeliver({ db, config, logger, now, job: RECONCILE_JOB }, [alertForStalledRun(RECONCILE_JOB, stalled)]);
    },
  };
}
