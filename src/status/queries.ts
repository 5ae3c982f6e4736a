import type { Knex } from 'knex';

export interface OpenAlert {
  id: string;
  kind: string;
  title: string;
  /** pending: not yet taken by every configured channel; sent: delivered, not resolved; undeliverable: raised with no channel configured. */
  status: 'pending' | 'sent' | 'undeliverable';
  createdAt: Date;
  attempts: number;
  lastError: string | null;
}

/** Sent alerts stay "open" this long unless resolved: the on-call view of the last day. */
export const RECENT_ALERT_MS = 24 * 3_600_000;

/** Alerts not yet delivered, and delivered (or undeliverable) ones from the last day that nobody resolved; newest first. */
export async function openAlerts(db: Knex, now: Date, limit = 50): Promise<OpenAlert[]> {
  const res = (await db.raw(
    `SELECT id::text AS id, kind, title, status, created_at, attempts, last_error FROM alerts
      WHERE resolved_at IS NULL AND (status = 'pending' OR (status IN ('sent', 'undeliverable') AND created_at >= ?))
      ORDER BY created_at DESC, id DESC LIMIT ?`,
    [new Date(now.getTime() - RECENT_ALERT_MS), limit],
  )) as {
    rows: Array<{
      id: string;
      kind: string;
      title: string;
      status: OpenAlert['status'];
      created_at: Date;
      attempts: number;
      last_error: string | null;
    }>;
  };
  return res.rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    title: r.title,
    status: r.status,
    createdAt: r.created_at,
    attempts: r.attempts,
    lastError: r.last_error,
  }));
}
