import type { Knex } from 'knex';
import { unnestRows } from './unnest.ts';
import { count, rowsOf, text } from './row.ts';

export interface LateCandidate {
  direction: string;
  orderId: string;
  /** The code whose first appearance dates the change: STATUS for a reversal, FEE for a fee correction. */
  code: string;
}

/**
 * When a check first found each candidate's code on its order (epoch ms), keyed "direction:orderId:code":
 * the day a late change was observed, so it is posted in that day's journal once, not again on every
 * later day whose report still lists it among the late changes.
 */
export async function firstSeenWithCode(db: Knex | Knex.Transaction, rows: readonly LateCandidate[]): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const u = unnestRows(rows, [
    { name: 'direction', type: 'text', value: (r) => r.direction },
    { name: 'order_id', type: 'bigint', value: (r) => r.orderId },
    { name: 'code', type: 'text', value: (r) => r.code },
  ]);
  const res = await db.raw(
    `SELECT v.direction, v.order_id::text AS order_id, v.code, floor(extract(epoch from min(i.checked_at)) * 1000)::bigint::text AS first_ms
       FROM ${u.sql}
       JOIN recon_items i ON i.direction = v.direction AND i.order_id = v.order_id AND v.code = ANY(i.codes)
      GROUP BY v.direction, v.order_id, v.code`,
    u.bindings,
  );
  return new Map(rowsOf(res).map((r) => [`${text(r, 'direction')}:${text(r, 'order_id')}:${text(r, 'code')}`, count(r, 'first_ms')]));
}
