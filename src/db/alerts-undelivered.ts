import type { Knex } from 'knex';
import { arrayLiteral } from './unnest.ts';
import { date, oneOf, rowsOf, text } from './row.ts';

/** Alerts no channel could take: recorded as undeliverable, later folded into one summary. */

/** Every pending alert becomes undeliverable with the reason (there is no channel to send it to). */
export async function markPendingUndeliverable(db: Knex, reason: string): Promise<number> {
  const res = await db.raw(
    `UPDATE alerts SET status = 'undeliverable', next_attempt_at = NULL, last_error = ?
      WHERE status = 'pending' RETURNING id`,
    [reason],
  );
  return rowsOf(res).length;
}

const STALE_STATUSES = ['pending', 'undeliverable'] as const;

export interface StaleAlert {
  id: string;
  kind: string;
  title: string;
  status: (typeof STALE_STATUSES)[number];
  created_at: Date;
}

/**
 * Locks the alerts that are stale news, oldest first: undeliverable ones, and pending ones raised
 * before `staleBefore` (a channel failing that long). In the caller's transaction; SKIP LOCKED, so
 * two senders never both take one.
 */
export async function lockStaleAlerts(db: Knex, staleBefore: Date): Promise<StaleAlert[]> {
  const res = await db.raw(
    `SELECT id::text AS id, kind, title, status, created_at FROM alerts
      WHERE status = 'undeliverable' OR (status = 'pending' AND created_at < ?)
      ORDER BY created_at, alerts.id FOR UPDATE SKIP LOCKED`,
    [staleBefore],
  );
  return rowsOf(res).map((r) => ({
    id: text(r, 'id'),
    kind: text(r, 'kind'),
    title: text(r, 'title'),
    status: oneOf(r, 'status', STALE_STATUSES),
    created_at: date(r, 'created_at'),
  }));
}

/** The locked stale alerts are now told in summary alert `summaryId`. */
export async function markSummarised(db: Knex, ids: readonly string[], summaryId: string): Promise<void> {
  await db.raw(
    `UPDATE alerts SET status = 'summarised', next_attempt_at = NULL, last_error = ?
      WHERE id = ANY (?::bigint[]) AND status IN ('pending', 'undeliverable')`,
    [`summarised in alert ${summaryId}`, arrayLiteral(ids, (x) => x)],
  );
}

/** Whether any alert is stale news (a cheap check before opening a transaction). */
export async function hasStaleAlerts(db: Knex, staleBefore: Date): Promise<boolean> {
  const res = await db.raw(
    `SELECT EXISTS (SELECT 1 FROM alerts WHERE status = 'undeliverable' OR (status = 'pending' AND created_at < ?)) AS any`,
    [staleBefore],
  );
  return rowsOf(res)[0]?.any === true;
}
