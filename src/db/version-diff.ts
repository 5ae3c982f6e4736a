import type { Knex } from 'knex';
import { DIRECTIONS, type Direction } from '../domain/types.ts';
import { count, int, oneOf, rowsOf, text, textOrNull, texts, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** How many orders a version recorded per verdict, and per mismatch code. */
export interface VersionTally {
  verdicts: Record<string, number>;
  codes: Record<string, number>;
}

/** An order whose verdict or codes differ between two versions (null: not recorded by that version). */
export interface ChangedOrder {
  direction: Direction;
  orderId: string;
  merchantRef: string | null;
  before: { verdict: string; codes: string[] } | null;
  after: { verdict: string; codes: string[] } | null;
}

export async function versionTally(db: Conn, versionId: string): Promise<VersionTally> {
  const verdicts = await db.raw(
    `SELECT verdict AS k, count(*)::int AS n FROM report_version_orders WHERE version_id = ?::bigint GROUP BY verdict`,
    [versionId],
  );
  const codes = await db.raw(
    `SELECT code AS k, count(*)::int AS n FROM report_version_orders, unnest(codes) AS code WHERE version_id = ?::bigint GROUP BY code`,
    [versionId],
  );
  const toRecord = (res: unknown) => Object.fromEntries(rowsOf(res).map((r) => [text(r, 'k'), int(r, 'n')]));
  return { verdicts: toRecord(verdicts), codes: toRecord(codes) };
}

/** The orders whose verdict or codes changed from one version to another, the first `limit`, and how many. */
export async function changedOrders(
  db: Conn,
  beforeId: string,
  afterId: string,
  limit: number,
): Promise<{ total: number; rows: ChangedOrder[] }> {
  const res = await db.raw(
    `WITH a AS (SELECT direction, order_id, verdict, codes FROM report_version_orders WHERE version_id = ?::bigint),
          b AS (SELECT direction, order_id, verdict, codes FROM report_version_orders WHERE version_id = ?::bigint),
          d AS (
            SELECT coalesce(a.direction, b.direction) AS direction, coalesce(a.order_id, b.order_id) AS order_id,
                   a.verdict AS before_verdict, a.codes AS before_codes, b.verdict AS after_verdict, b.codes AS after_codes
              FROM a FULL JOIN b ON a.direction = b.direction AND a.order_id = b.order_id
             WHERE a.verdict IS DISTINCT FROM b.verdict OR a.codes IS DISTINCT FROM b.codes)
     SELECT d.*, d.order_id::text AS order_id, coalesce(p.merchant_ref, q.merchant_ref) AS merchant_ref, count(*) OVER () AS total
       FROM d
       LEFT JOIN payment_orders p ON d.direction = 'payment' AND p.id = d.order_id
       LEFT JOIN payout_orders q ON d.direction = 'payout' AND q.id = d.order_id
      ORDER BY d.direction, d.order_id
      LIMIT ?`,
    [beforeId, afterId, limit],
  );
  const side = (r: Row, prefix: 'before' | 'after') => {
    const verdict = textOrNull(r, `${prefix}_verdict`);
    return verdict === null ? null : { verdict, codes: texts(r, `${prefix}_codes`) };
  };
  const rows = rowsOf(res);
  return {
    total: rows.length ? count(rows[0], 'total') : 0,
    rows: rows.map((r) => ({
      direction: oneOf(r, 'direction', DIRECTIONS),
      orderId: text(r, 'order_id'),
      merchantRef: textOrNull(r, 'merchant_ref'),
      before: side(r, 'before'),
      after: side(r, 'after'),
    })),
  };
}
