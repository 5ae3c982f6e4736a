/**
 * Rows as payrecon writes them, inserted directly with chosen times, for the retention tests: an
 * order with its checks, runs, cases, alerts, webhook events, sessions and report versions.
 */
import type { Knex } from 'knex';

type Direction = 'payment' | 'payout';
export const DAY = 86_400_000;
export const daysAgo = (now: Date, days: number) => new Date(now.getTime() - days * DAY);

let seq = 0;
const next = () => `${Date.now().toString(36)}-${(seq++).toString(36)}`;

const one = async (db: Knex, sql: string, bindings: readonly unknown[]): Promise<string> => {
  const res = (await db.raw(sql, bindings as Knex.RawBinding[])) as { rows: Array<{ id: string }> };
  return String(res.rows[0].id);
};

export function world(db: Knex) {
  const run = (job: string, at: Date, status = 'completed') =>
    one(db, `INSERT INTO job_runs (job, status, started_at, heartbeat_at, finished_at) VALUES (?, ?, ?, ?, ?) RETURNING id`, [
      job,
      status,
      at,
      at,
      status === 'running' ? null : at,
    ]);
  return {
    run,
    order: async (direction: Direction, at: Date, category: 'success' | 'failed' | 'pending' = 'success') => {
      const ref = next();
      const table = direction === 'payment' ? 'payment_orders' : 'payout_orders';
      const id = await one(
        db,
        `INSERT INTO ${table} (merchant_ref, transaction_ref, currency, method, amount, status, status_category, created_at, updated_at, finalized_at)
         VALUES (?, ?, 'INR', 'UPI', '1250.50', ?, ?, ?, ?, ?) RETURNING id`,
        [`m-${ref}`, `t-${ref}`, category === 'pending' ? 'Pending' : 'Success', category, at, at, category === 'pending' ? null : at],
      );
      return { direction, id, transactionRef: `t-${ref}` };
    },
    /** A check by a run of its own (a run checks an order once), or by runId. */
    check: async (o: { direction: Direction; id: string; transactionRef: string }, at: Date, verdict = 'matched', runId?: string) =>
      one(
        db,
        `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                  local_status, local_category, local_amount, provider_amount, verdict)
         VALUES (?::bigint, ?, ?::bigint, 'm', ?, 'INR', 'UPI', ?, 'Success', 'success', '1250.50', '1250.50', ?) RETURNING id`,
        [runId ?? (await run('reconcile', at)), o.direction, o.id, o.transactionRef, at, verdict],
      ),
    caseOf: (o: { direction: Direction; id: string; transactionRef: string }, at: Date, state: 'open' | 'acknowledged' | 'resolved') =>
      one(
        db,
        `INSERT INTO cases (subject, code, direction, order_id, transaction_ref, currency, occurred_at, state, resolution,
                            created_at, opened_at, state_changed_at, last_seen_at)
         VALUES (?, 'AMOUNT', ?, ?::bigint, ?, 'INR', ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [
          `${o.direction}:${o.id}`,
          o.direction,
          o.id,
          o.transactionRef,
          at,
          state,
          state === 'resolved' ? 'adjusted' : null,
          at,
          at,
          at,
          at,
        ],
      ),
    webhook: (o: { direction: Direction; transactionRef: string }, at: Date, confirmation = 'confirmed') =>
      one(
        db,
        `INSERT INTO webhook_events (direction, dedupe_key, transaction_ref, amount, raw_body, headers, received_at, confirmation)
         VALUES (?, ?, ?, '1250.50', '{"amount":"1250.50"}', '{}', ?, ?) RETURNING id`,
        [o.direction, next(), o.transactionRef, at, confirmation],
      ),
    alert: (a: { at: Date; resolvedAt: Date | null; status?: string; runId?: string; caseIds?: string[]; resolves?: string }) =>
      one(
        db,
        `INSERT INTO alerts (fingerprint, kind, run_id, title, payload, created_at, status, resolved_at, case_ids, resolves_alert_id)
         VALUES (?, 'mismatches', ?::bigint, 'title', '{}', ?, ?, ?, ?::bigint[], ?::bigint) RETURNING id`,
        [next(), a.runId ?? null, a.at, a.status ?? 'sent', a.resolvedAt, a.caseIds ?? [], a.resolves ?? null],
      ),
    reportVersion: async (date: string, at: Date, orders: Array<{ direction: Direction; id: string }>) => {
      const id = await one(
        db,
        `INSERT INTO report_versions (business_date, version, directory, manifest, content_hash, created_at, orders_recorded)
         VALUES (?::date, 1, '/r', '{}', 'h', ?, true) RETURNING id`,
        [date, at],
      );
      for (const o of orders) {
        await db.raw(
          `INSERT INTO report_version_orders (version_id, direction, order_id, verdict) VALUES (?::bigint, ?, ?::bigint, 'matched')`,
          [id, o.direction, o.id],
        );
      }
      return id;
    },
    user: () =>
      one(
        db,
        `INSERT INTO console_users (name, role, password_hash, created_at, updated_at) VALUES (?, 'admin', 'x', now(), now()) RETURNING id`,
        [`u${seq++}`],
      ),
    session: (userId: string, lastSeen: Date, ended: Date | null) =>
      one(
        db,
        `INSERT INTO console_sessions (token_hash, user_id, csrf_token, address, created_at, last_seen_at, ended_at)
         VALUES (?, ?::bigint, 'c', '127.0.0.1', ?, ?, ?) RETURNING id`,
        [next(), userId, lastSeen, lastSeen, ended],
      ),
    loginFailure: (at: Date) =>
      one(db, `INSERT INTO console_login_failures (name, address, at) VALUES ('x', '127.0.0.1', ?) RETURNING id`, [at]),
  };
}

export const PRUNED_TABLES = ['recon_items', 'alerts', 'webhook_events', 'console_sessions', 'console_login_failures', 'job_runs'];
/** Every table payrecon writes, for "nothing changed" comparisons. */
export const ALL_TABLES = [
  ...PRUNED_TABLES,
  'payment_orders',
  'payout_orders',
  'cases',
  'case_events',
  'report_versions',
  'report_version_orders',
  'balance_snapshots',
  'rate_snapshots',
];

export async function rowCounts(db: Knex, tables = ALL_TABLES): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) {
    const res = (await db.raw(`SELECT count(*)::int AS n FROM ${t}`)) as { rows: Array<{ n: number }> };
    out[t] = res.rows[0].n;
  }
  return out;
}

export async function exists(db: Knex, table: string, id: string): Promise<boolean> {
  const res = (await db.raw(`SELECT 1 FROM ${table} WHERE id = ?::bigint`, [id])) as { rows: unknown[] };
  return res.rows.length === 1;
}
