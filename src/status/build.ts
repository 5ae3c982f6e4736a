import type { RunRow } from '../db/runs.ts';
import type { ReportDelivery } from '../db/deliveries.ts';
import { SCHEDULED_JOBS, type Schedules } from '../schedule/schedules.ts';
import type { OpenAlert } from '../db/open-alerts.ts';
import { failingSteps, type AlertingStepHealth } from '../db/alerting-health.ts';
import { describeDuration } from '../recon/timing.ts';
import { stallOf, type Stall } from '../recon/run-stall.ts';
import { RECONCILE_JOB } from '../reconcile/reconcile.ts';

/**
 * The jobs whose runs record progress as they go (reconcile: each batch written), so silence means
 * stuck. The others' rows record only their start and end: the snapshot's and the daily's wait on
 * reconcile runs (watched themselves) and may rightly take longer than the threshold.
 */
const RECORDS_PROGRESS: ReadonlySet<string> = new Set([RECONCILE_JOB]);

export interface JobStatus {
  job: string;
  /** The cron expression, "off", or null for a job the scheduler does not run (e.g. webhook). */
  schedule: string | null;
  next: Date | null;
  lastRun:
    | (Pick<
        RunRow,
        | 'id'
        | 'status'
        | 'dryRun'
        | 'startedAt'
        | 'heartbeatAt'
        | 'finishedAt'
        | 'pid'
        | 'host'
        | 'selected'
        | 'checked'
        | 'counts'
        | 'error'
        | 'params'
      > & {
        /** Still running with no progress for longer than RUN_STALL_AFTER_SECONDS: since when, and for how long at `now`. */
        stalled: Stall | null;
        /** Still 'running', but its recorded process is gone from this host (killed, crashed): no stall to wait for. */
        processGone: boolean;
        /** A later start of the job picks the run up where it stopped (reconcile). */
        resumes: boolean;
      })
    | null;
}

export interface StatusReport {
  now: Date;
  timezone: string;
  jobs: JobStatus[];
  pendingEmails: Array<{ businessDate: string; version: number; attempts: number; error: string | null }>;
  /** With their age at `now`, e.g. "3h". */
  openAlerts: Array<OpenAlert & { age: string }>;
  /** Alerting steps whose last attempt failed (no success since): alerts may not be going out. */
  alertingFailing: AlertingStepHealth[];
}

/** Assembles the status view from what was read; pure (now is given). */
export function buildStatus(input: {
  now: Date;
  timezone: string;
  schedules: Schedules;
  lastRuns: RunRow[];
  pendingEmails: ReportDelivery[];
  openAlerts: OpenAlert[];
  /** alerting_health as read; default: none recorded. */
  alerting?: readonly AlertingStepHealth[];
  /** RUN_STALL_AFTER_SECONDS in ms. */
  stallAfterMs: number;
  /** Whether a run's recorded process is gone (src/status/process-gone.ts); default: never known. */
  processGone?: (run: { pid: number | null; host: string | null }) => boolean;
}): StatusReport {
  const gone = input.processGone ?? (() => false);
  const byJob = new Map(input.lastRuns.map((r) => [r.job, r]));
  const lastOf = (job: string): JobStatus['lastRun'] => {
    const r = byJob.get(job);
    return r
      ? {
          id: r.id,
          status: r.status,
          dryRun: r.dryRun,
          startedAt: r.startedAt,
          heartbeatAt: r.heartbeatAt,
          finishedAt: r.finishedAt,
          pid: r.pid,
          host: r.host,
          selected: r.selected,
          checked: r.checked,
          counts: r.counts,
          error: r.error,
          params: r.params,
          ...liveness(job, r),
        }
      : null;
  };
  // A gone process outranks the stall rule: it is known now, the stall only after the threshold.
  function liveness(job: string, r: RunRow): { stalled: Stall | null; processGone: boolean; resumes: boolean } {
    const resumes = RECORDS_PROGRESS.has(job);
    if (r.status === 'running' && gone(r)) return { stalled: null, processGone: true, resumes };
    const stalled = resumes ? stallOf({ status: r.status, lastProgressAt: r.heartbeatAt }, input.now, input.stallAfterMs) : null;
    return { stalled, processGone: false, resumes };
  }
  // prune is listed when the schedules name it (from the config they always do).
  const listed = SCHEDULED_JOBS.filter((job) => job !== 'prune' || 'prune' in input.schedules);
  const scheduled: JobStatus[] = listed.map((job) => {
    const spec = input.schedules[job];
    return { job, schedule: spec?.expression ?? 'off', next: spec?.next(input.now) ?? null, lastRun: lastOf(job) };
  });
  const others: JobStatus[] = [...byJob.keys()]
    .filter((job) => !(listed as readonly string[]).includes(job))
    .sort()
    .map((job) => ({ job, schedule: null, next: null, lastRun: lastOf(job) }));
  return {
    now: input.now,
    timezone: input.timezone,
    jobs: [...scheduled, ...others],
    pendingEmails: input.pendingEmails.map((d) => ({
      businessDate: d.business_date,
      version: d.version,
      attempts: d.email_attempts,
      error: d.email_error,
    })),
    openAlerts: input.openAlerts.map((a) => ({ ...a, age: describeDuration(Math.max(0, input.now.getTime() - a.createdAt.getTime())) })),
    alertingFailing: failingSteps(input.alerting ?? []),
  };
}
