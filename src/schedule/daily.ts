import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { accountLockName, withJobLock } from '../db/locks.ts';
import { createRun, finishRun } from '../db/runs.ts';
import { DAILY_JOB, closeDeadDailyRuns, completedDailyDates } from '../db/schedule-runs.ts';
import { abortableSleep } from './sleep.ts';
import { messageOf } from '../domain/errors.ts';

export interface DayReconcile {
  /** The reconcile outcome status: completed, busy (lock held elsewhere), stalled (held by a run making no progress), interrupted, failed, ... */
  status: string;
  runIds: string[];
  /** With busy: who holds the lock and for how long. */
  lockHolder?: string;
}

export interface DayReport {
  exitCode: number;
  version: number;
  unchanged: boolean;
  emails: Array<{ status: string }>;
}

export interface DailyDeps {
  db: Db;
  logger: Logger;
  now: () => Date;
  signal: AbortSignal;
  /** Whether the report is e-mailed (SMTP_URL and REPORT_EMAIL_TO set); recorded in the run's params. */
  email: boolean;
  reconcileDay: (date: string, signal: AbortSignal) => Promise<DayReconcile>;
  reportDay: (date: string) => Promise<DayReport>;
  /** While another reconcile holds its lock (the 15-minute one, here or elsewhere), retry this often... */
  lockRetryMs: number;
  /** ...for at most this long; then the daily fails and the next start catches it up. */
  lockWaitMs: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The account whose day this is, set only when several are configured: its own lock, runs and done dates. */
  account?: string;
}

export type DailyStatus = 'completed' | 'skipped' | 'already_done' | 'interrupted' | 'failed';

export interface DailyResult {
  status: DailyStatus;
  runId: string | null;
  date: string;
  reconcileRunIds: string[];
  report: DayReport | null;
  error: string | null;
}

/**
 * The daily run for one business date: a full reconcile of the date, then its report (e-mailed
 * when configured), recorded as a job_runs row of job 'daily' with params { date }. Under its
 * own advisory lock, so of several schedulers exactly one does it; a date already done is not
 * done again (a scheduler firing late, or a catch-up racing the cron).
 */
export async function runDaily(deps: DailyDeps, date: string): Promise<DailyResult> {
  const base = { date, reconcileRunIds: [] as string[], report: null, error: null };
  const { account } = deps;
  const locked = await withJobLock(deps.db, accountLockName(DAILY_JOB, account), async (): Promise<DailyResult> => {
    if ((await completedDailyDates(deps.db.knex, date, account)).has(date)) return { ...base, status: 'already_done', runId: null };
    await closeDeadDailyRuns(deps.db.knex, deps.now(), account);
    const run = await createRun(
      deps.db.knex,
      DAILY_JOB,
      { date, email: deps.email, ...(account !== undefined ? { account } : {}) },
      { dryRun: false, now: deps.now(), ...(account !== undefined ? { accountId: account } : {}) },
    );
    const log = deps.logger.child({ runId: run.id, date });
    try {
      const result = await reconcileThenReport(deps, date, log);
      const counts = {
        reconcileRuns: result.reconcileRunIds.length,
        ...(result.report
          ? { reportVersion: result.report.version, emailsSent: result.report.emails.filter((e) => e.status === 'sent').length }
          : {}),
      };
      await finishRun(
        deps.db.knex,
        run.id,
        result.status === 'completed' ? 'completed' : result.status === 'interrupted' ? 'interrupted' : 'failed',
        counts,
        result.error,
        deps.now(),
      );
      return { ...result, runId: run.id };
    } catch (err) {
      await finishRun(deps.db.knex, run.id, 'failed', undefined, messageOf(err), deps.now());
      throw err;
    }
  });
  return locked.acquired ? locked.result! : { ...base, status: 'skipped', runId: null };
}

/** Reconcile the day (waiting while another reconcile holds the lock), then its report: the daily's work, also a console rerun's. */
export async function reconcileThenReport(deps: Omit<DailyDeps, 'email'>, date: string, log: Logger): Promise<Omit<DailyResult, 'runId'>> {
  const sleep = deps.sleep ?? abortableSleep;
  const waitUntil = deps.now().getTime() + deps.lockWaitMs;
  let rec: DayReconcile;
  for (;;) {
    rec = await deps.reconcileDay(date, deps.signal);
    // A stalled holder may yet move (a partition heals) or be stopped: keep trying within lockWaitMs.
    const held = rec.status === 'skipped' || rec.status === 'busy' || rec.status === 'stalled';
    if (!held || deps.signal.aborted) break;
    if (deps.now().getTime() + deps.lockRetryMs > waitUntil) {
      return {
        status: 'failed',
        date,
        reconcileRunIds: [],
        report: null,
        error: `another reconcile held the lock for over ${deps.lockWaitMs} ms${rec.lockHolder ? `: ${rec.lockHolder}` : ''}`,
      };
    }
    // Usually this scheduler's own sweep or snapshot: a wait, not a fault.
    log.info(
      { retryInMs: deps.lockRetryMs, lockHolder: rec.lockHolder },
      `daily ${date}: waiting for the reconcile lock${rec.lockHolder ? ` (held by ${rec.lockHolder})` : ''}; retrying in ${Math.round(deps.lockRetryMs / 1000)} s`,
    );
    await sleep(deps.lockRetryMs, deps.signal);
  }
  if (
    deps.signal.aborted ||
    rec.status === 'interrupted' ||
    rec.status === 'skipped' ||
    rec.status === 'busy' ||
    rec.status === 'stalled'
  ) {
    return { status: 'interrupted', date, reconcileRunIds: rec.runIds, report: null, error: 'stopped before the report' };
  }
  if (rec.status !== 'completed') {
    // A report of a day that could not be reconciled would tell accounting less than it seems to.
    return {
      status: 'failed',
      date,
      reconcileRunIds: rec.runIds,
      report: null,
      error: `reconcile of ${date} ended ${rec.status}; no report`,
    };
  }
  const report = await deps.reportDay(date);
  const undelivered = report.emails.some((e) => e.status === 'failed');
  log.info({ version: report.version, unchanged: report.unchanged, emails: report.emails.map((e) => e.status) }, 'daily report done');
  return {
    status: 'completed',
    date,
    reconcileRunIds: rec.runIds,
    report,
    // The version stays e-mail 'pending' and the next report run retries it; the day itself is done.
    error: undelivered ? 'report e-mail not delivered; left pending for retry' : null,
  };
}
