// SCHEDULE_MODE=queue: the scheduler's runners enqueue instead of running; `payrecon worker` processes run the jobs.
import type { Config } from '../config/config.ts';
import { configuredAccounts } from '../config/accounts.ts';
import type { Db } from '../db/connect.ts';
import { dailyDateFor } from '../schedule/catch-up.ts';
import type { JobRunner, JobRunReport } from '../schedule/scheduler.ts';
import type { ScheduledJobName } from '../schedule/schedules.ts';
import { enqueueOne, enqueueReconcileSweep, TASKS, type PlanResult } from './queue-plan.ts';

/** Enqueued, or found planned by another scheduler already: either way this scheduler's part is done. */
function reportOf(result: PlanResult): JobRunReport {
  return result.planned
    ? { status: 'enqueued', exitCode: 0, counts: { jobs: result.jobs }, detail: { runId: result.runId } }
    : { status: 'skipped', exitCode: 0, detail: { reason: 'already enqueued by another scheduler' } };
}

/** Several plans of one occurrence (one per account) as the scheduler's one report. */
function reportOfAll(plans: readonly PlanResult[]): JobRunReport {
  const planned = plans.filter((p) => p.planned);
  if (planned.length === 0) return reportOf({ planned: false });
  return {
    status: 'enqueued',
    exitCode: 0,
    counts: { jobs: planned.reduce((n, p) => n + p.jobs, 0), runs: planned.length },
    detail: { runIds: planned.map((p) => p.runId) },
  };
}

/** One job per account: one account's report as it always was, several accounts' as one. */
const reportOfJobs = (plans: readonly PlanResult[]): JobRunReport => (plans.length === 1 ? reportOf(plans[0]) : reportOfAll(plans));

export function queueRunners(deps: { config: Config; db: Db }): Record<ScheduledJobName, JobRunner> {
  const { config, db } = deps;
  // Every account's own job, each keyed by its account and occurrence: planned once whichever scheduler gets there first.
  const eachAccount = async (plan: (account: string) => Promise<PlanResult>): Promise<PlanResult[]> => {
    const plans: PlanResult[] = [];
    for (const account of configuredAccounts(config)) plans.push(await plan(account.id));
    return plans;
  };
  // One job of the whole deployment (bank codes, prune: schedule-runners.ts says why they are not per account).
  const deploymentJob =
    (task: typeof TASKS.bankCodes | typeof TASKS.prune): JobRunner =>
    async ({ logger, scheduledFor }) =>
      reportOf(await enqueueOne({ config, db, logger }, task, scheduledFor.toISOString(), { scheduledFor: scheduledFor.toISOString() }));
  return {
    // One sweep per account, each its own run and batches: an account's orders are checked only with its own client and budget.
    reconcile: async ({ logger, scheduledFor }) =>
      reportOfAll(await eachAccount((account) => enqueueReconcileSweep({ config, db, logger, account }, scheduledFor))),
    snapshot: async ({ logger, scheduledFor }) => {
      const due = scheduledFor.toISOString();
      return reportOfJobs(
        await eachAccount((account) => enqueueOne({ config, db, logger, account }, TASKS.snapshot, due, { scheduledFor: due })),
      );
    },
    'bank-codes': deploymentJob(TASKS.bankCodes),
    prune: deploymentJob(TASKS.prune),
    // The daily is keyed by account and business date: a catch-up and a tick for the same day enqueue it once.
    daily: async ({ logger, scheduledFor, date }) => {
      const day = date ?? dailyDateFor(scheduledFor, config.REPORT_TIMEZONE);
      const payload = { scheduledFor: scheduledFor.toISOString(), date: day };
      return reportOfJobs(await eachAccount((account) => enqueueOne({ config, db, logger, account }, TASKS.daily, day, payload)));
    },
  };
}
