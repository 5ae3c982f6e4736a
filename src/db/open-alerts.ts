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

/**
 * Alerts whose cause has not cleared (resolved_at unset: its cases, the failed job, the flagged rate),
 * delivered, undeliverable or not yet; newest first. `resolved` messages are news of a cleared cause, never open.
 * `now` bounds them: an alert raised after it is not shown.
 */
export async function openAlerts(db: Knex, now: Date, limit = 50): Promise<OpenAlert[]> {
  const res = (await db.raw(
    `SELECT id::text AS id, kind, title, status, created_at, attempts, last_error FROM alerts
      WHERE resolved_at IS NULL AND status IN ('pending', 'sent', 'undeliverable') AND kind <> 'resolved' AND created_at <= ?
      ORDER BY created_at DESC, alerts.id DESC LIMIT ?`,
    [now, limit],
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
