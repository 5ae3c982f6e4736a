import type { Knex } from 'knex';

/** The scheduler's own reads and writes on job_runs and report_versions (src/schedule, services/schedule.ts). */

export const DAILY_JOB = 'daily';

/** When each job last started, whatever its outcome. */
export async function lastStartedByJob(db: Knex): Promise<Partial<Record<string, Date>>> {
  const rows = (await db('job_runs').select('job').max({ at: 'started_at' }).groupBy('job')) as { job: string; at: Date }[];
  return Object.fromEntries(rows.map((r) => [r.job, r.at]));
}

/** Business dates with a completed daily run, since a date (YYYY-MM-DD). */
export async function completedDailyDates(db: Knex, since: string): Promise<Set<string>> {
  const rows = (await db('job_runs')
    .where({ job: DAILY_JOB, status: 'completed' })
    .whereRaw(`params->>'date' >= ?`, [since])
    .distinct(db.raw(`params->>'date' AS date`))) as { date: string }[];
  return new Set(rows.map((r) => r.date));
}

/** Business dates with at least one report version, since a date. */
export async function reportDatesSince(db: Knex, since: string): Promise<Set<string>> {
  const res = (await db.raw(`SELECT DISTINCT business_date::text AS date FROM report_versions WHERE business_date >= ?::date`, [
    since,
  ])) as {
    rows: { date: string }[];
  };
  return new Set(res.rows.map((r) => r.date));
}

/**
 * Daily rows left 'running' by a process that died. Call only while holding the daily lock, so
 * none of them is alive; they become 'interrupted' and the new run does their work again.
 */
export async function closeDeadDailyRuns(db: Knex, now: Date): Promise<number> {
  return db('job_runs')
    .where({ job: DAILY_JOB, status: 'running' })
    .update({ status: 'interrupted', finished_at: now, heartbeat_at: now, error: 'the scheduler stopped before this run finished' });
}
