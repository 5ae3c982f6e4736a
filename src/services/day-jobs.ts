import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/connect.ts';
import type { DayReconcile, DayReport } from '../schedule/daily.ts';
import { reconcileJob } from './reconcile.ts';
import { reportJob } from './report.ts';
import type { PayreconMetrics } from '../metrics/metrics.ts';
import { jobOutcome } from '../metrics/job-outcome.ts';

/** account: the day of that account (a console rerun's, several configured); unset: the jobs' own. */
export interface DayJobs {
  reconcileDay: (date: string, stopSignal: AbortSignal, account?: string) => Promise<DayReconcile>;
  reportDay: (date: string, account?: string) => Promise<DayReport>;
}

/**
 * A business day's two steps on a shared pool: reconcile --date, then report --date. The daily
 * schedule e-mails the report when configured; a console rerun does not.
 */
export function dayJobs(
  ctx: { config: Config; logger: Logger; db: Db; metrics?: PayreconMetrics },
  opts: { email?: boolean; now?: () => Date; account?: string } = {},
): DayJobs {
  const { config, logger, db, metrics } = ctx;
  // The day of one account (several configured); unset: the only one, as before.
  const accountOption = (account = opts.account) => (account !== undefined ? { account } : {});
  return {
    reconcileDay: async (date, stopSignal, account) => {
      // One try per round: the caller's loop (daily schedule, console rerun worker) retries a held
      // reconcile lock every lockRetryMs for up to lockWaitMs, and names the holder when it gives up.
      const { exitCode, outcome } = await counted(metrics, 'reconcile', () =>
        reconcileJob({ date, progress: false, stopSignal, waitMs: 0, ...accountOption(account) }, { config, logger, db, metrics }),
      );
      metrics?.jobFinished('reconcile', jobOutcome(outcome.status, exitCode));
      return { status: outcome.status, runIds: outcome.runs.map((r) => r.runId), lockHolder: outcome.lockHolder };
    },
    reportDay: async (date, account) => {
      const { exitCode, report, emails } = await counted(metrics, 'report', () =>
        reportJob({ date, email: opts.email, now: opts.now, ...accountOption(account) }, { config, logger, db, metrics }),
      );
      metrics?.jobFinished('report', exitCode === 0 ? 'success' : 'failure');
      return { exitCode, version: report.version, unchanged: report.unchanged, emails };
    },
  };
}

/** A run that threw is counted as a failure here; one that returned is counted by its caller, which knows its status. */
async function counted<T>(metrics: PayreconMetrics | undefined, job: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    metrics?.jobFinished(job, 'failure');
    throw err;
  }
}
