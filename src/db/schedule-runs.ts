import type { Knex } from 'knex';

/** The scheduler's own reads and writes on job_runs and report_versions (src/schedule, services/schedule.ts). */

export const DAILY_JOB = 'daily';

/** When each job last started, whatever its outcome. */
export async function lastStartedByJob(db: Knex): Promise<Partial<Record<string, Date>>> {
  const rows = (await db('job_runs').select('job').max({ at: 'started_at' }).groupBy('job')) as { job: string; at: Date }[];
  return Object.fromEntries(rows.map((r) => [r.job, r.at]));
}

/**
 * Business dates with a completed daily run, since a date (YYYY-MM-DD). accounts: only dates completed
 * for every one of them (several configured: a day is done when each account's daily is); one id: that account's.
 */
export async function completedDailyDates(db: Knex, since: string, accounts?: string | readonly string[]): Promise<Set<string>> {
  const ids = accounts === undefined ? undefined : typeof accounts === 'string' ? [accounts] : accounts;
  const rows = (await db('job_runs')
    .where({ job: DAILY_JOB, status: 'completed' })
    .whereRaw(`params->>'date' >= ?`, [since])
    .modify((q) => (ids ? q.whereIn('account_id', ids) : q))
    .groupByRaw(`params->>'date'`)
    .havingRaw('count(DISTINCT account_id) >= ?', [ids?.length ?? 1])
    .select(db.raw(`params->>'date' AS date`))) as { date: string }[];
  return new Set(rows.map((r) => r.date));
}

/** Business dates with at least one report version, since a date; with accounts, a version of each of them. */
export async function reportDatesSince(db: Knex, since: string, accounts?: readonly string[]): Promise<Set<string>> {
  const ids = accounts ? [...accounts] : null;
  const res = (await db.raw(
    `SELECT business_date::text AS date FROM report_versions
      WHERE business_date >= ?::date AND (?::text[] IS NULL OR account_id = ANY(?::text[]))
      GROUP BY business_date HAVING count(DISTINCT account_id) >= ?`,
    [since, ids, ids, accounts?.length ?? 1],
  )) as {
    rows: { date: string }[];
  };
  return new Set(res.rows.map((r) => r.date));
}

/**
 * Daily rows left 'running' by a process that died. Call only while holding the daily lock, so
 * none of them is alive; they become 'interrupted' and the new run does their work again.
 */
export async function closeDeadDailyRuns(db: Knex, now: Date, account?: string): Promise<number> {
  return db('job_runs')
    .where(account === undefined ? { job: DAILY_JOB, status: 'running' } : { job: DAILY_JOB, status: 'running', account_id: account })
    .update({ status: 'interrupted', finished_at: now, heartbeat_at: now, error: 'the scheduler stopped before this run finished' });
}
