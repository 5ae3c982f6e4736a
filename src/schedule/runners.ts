import type { Config } from '../config/config.ts';
import type { Db } from '../db/connect.ts';
import { reconcileJob } from '../../jobs/reconcile.ts';
import { snapshotJob } from '../../jobs/snapshot.ts';
import { bankSyncJob } from '../../jobs/bank-codes.ts';
import { reportJob } from '../../jobs/report.ts';
import { dailyDateFor } from './catch-up.ts';
import { runDaily } from './daily.ts';
import type { JobRunner } from './scheduler.ts';
import type { ScheduledJobName } from './schedules.ts';

export interface RunnerDeps {
  config: Config;
  /** One pool shared by every job of this scheduler. */
  db: Db;
  now?: () => Date;
  /** The daily's wait for the reconcile lock (defaults: retry every 30 s for up to 2 h). */
  lockRetryMs?: number;
  lockWaitMs?: number;
}

/** The real jobs behind each schedule, each given the run's child logger and the shared pool. */
export function jobRunners(deps: RunnerDeps): Record<ScheduledJobName, JobRunner> {
  const { config, db } = deps;
  const now = deps.now ?? (() => new Date());
  const email = Boolean(config.SMTP_URL && config.REPORT_EMAIL_TO?.length);
  return {
    reconcile: async ({ logger, signal }) => {
      const { exitCode, outcome } = await reconcileJob({ progress: false, stopSignal: signal }, { config, logger, db });
      return { status: outcome.status, exitCode, detail: { runIds: outcome.runs.map((r) => r.runId) } };
    },
    snapshot: async ({ logger }) => {
      const { exitCode, result } = await snapshotJob({}, { config, logger, db });
      return { status: result.status, exitCode, detail: { runId: result.runId } };
    },
    'bank-codes': async ({ logger }) => {
      const { exitCode, result } = await bankSyncJob({}, { config, logger, db });
      return { status: result.status, exitCode, detail: { runId: result.runId } };
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
          reconcileDay: async (day, stopSignal) => {
            // One try per round: runDaily's own loop waits (lockRetryMs, up to lockWaitMs) and logs it.
            const { outcome } = await reconcileJob({ date: day, progress: false, stopSignal, waitMs: 0 }, { config, logger, db });
            return { status: outcome.status, runIds: outcome.runs.map((r) => r.runId), lockHolder: outcome.lockHolder };
          },
          reportDay: async (day) => {
            const { exitCode, report, emails } = await reportJob({ date: day, email, now }, { config, logger, db });
            return { exitCode, version: report.version, unchanged: report.unchanged, emails };
          },
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
}
