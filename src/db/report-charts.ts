import type { Knex } from 'knex';
import { int, rowsOf, text } from './row.ts';

/** One account's versions (several accounts configured); null, with one account: every version. */
const OF_ACCOUNT = '(?::text IS NULL OR account_id = ?::text)';
const ofAccount = (account: string | undefined): [string | null, string | null] => [account ?? null, account ?? null];

/** Mismatched orders of one business day carrying one code. */
export interface DayCodeCount {
  day: string;
  code: string;
  orders: number;
}

/**
 * Mismatch codes of the business days [first, end) as each day's latest recorded report version
 * said them (report_version_orders): the trend chart's earlier days, read from what accounting
 * was told instead of re-checking every order of a month. Days without a version count nothing.
 */
export async function reportedCodeCounts(db: Knex, days: { first: string; end: string }, account?: string): Promise<DayCodeCount[]> {
  const res = await db.raw(
    `WITH latest AS (
       SELECT DISTINCT ON (business_date) id, business_date FROM report_versions
        WHERE orders_recorded AND business_date >= ?::date AND business_date < ?::date AND ${OF_ACCOUNT}
        ORDER BY business_date, version DESC
     )
     SELECT l.business_date::text AS day, code, count(*)::int AS orders
       FROM latest l JOIN report_version_orders ro ON ro.version_id = l.id, unnest(ro.codes) AS code
      WHERE ro.verdict = 'mismatch'
      GROUP BY 1, 2 ORDER BY 1, code COLLATE "C"`,
    [days.first, days.end, ...ofAccount(account)],
  );
  return rowsOf(res).map((r) => ({ day: text(r, 'day'), code: text(r, 'code'), orders: int(r, 'orders') }));
}

/**
 * The business days of [first, end) with a recorded report version: the trend chart tells them
 * from days nobody reported, which would otherwise look like days without a mismatch.
 */
export async function reportedDays(db: Knex, days: { first: string; end: string }, account?: string): Promise<string[]> {
  const res = await db.raw(
    `SELECT DISTINCT business_date::text AS day FROM report_versions
      WHERE orders_recorded AND business_date >= ?::date AND business_date < ?::date AND ${OF_ACCOUNT} ORDER BY 1`,
    [days.first, days.end, ...ofAccount(account)],
  );
  return rowsOf(res).map((r) => text(r, 'day'));
}
