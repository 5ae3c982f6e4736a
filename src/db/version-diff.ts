import type { Knex } from 'knex';
import { DIRECTIONS, type Direction } from '../domain/types.ts';
import { bool, count, int, oneOf, oneRow, rowsOf, text, textOrNull, texts, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** How many orders a version recorded per verdict, and per mismatch code. */
export interface VersionTally {
  verdicts: Record<string, number>;
  codes: Record<string, number>;
}

/** What one side of a comparison recorded for an order; amounts are decimal text, null when no money code. */
export interface RecordedOrder {
  verdict: string;
  codes: string[];
  difference: string | null;
  atRisk: string | null;
}

/** An order whose verdict, codes or amounts differ between two versions (null: not recorded by that version). */
export interface ChangedOrder {
  direction: Direction;
  orderId: string;
  merchantRef: string | null;
  /** The order's currency (null: neither version recorded amounts). */
  currency: string | null;
  before: RecordedOrder | null;
  after: RecordedOrder | null;
}

/** One currency's money in two versions (before: the earlier one), amounts as decimal text. */
export interface CurrencyMoney {
  currency: string;
  /** Orders with money at stake. */
  ordersBefore: number;
  ordersAfter: number;
  /** Sum of the signed differences (provider - local). */
  differenceBefore: string;
  differenceAfter: string;
  /** Sum of the amounts at risk, and after - before. */
  atRiskBefore: string;
  atRiskAfter: string;
  atRiskChange: string;
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

/** Whether a version recorded its orders' money (versions written before sql/051 did not). */
export async function versionRecordedMoney(db: Conn, versionId: string): Promise<boolean> {
  const res = await db.raw(
    `SELECT NOT EXISTS (SELECT 1 FROM report_version_orders WHERE version_id = ?::bigint AND currency IS NULL) AS recorded`,
    [versionId],
  );
  return bool(oneRow(res), 'recorded');
}

/**
 * Per currency, the money at stake in one version against another (beforeId null: nothing before),
 * by currency (amounts of different currencies do not compare). A currency with nothing at stake in either is left out.
 */
export async function versionMoney(db: Conn, beforeId: string | null, afterId: string): Promise<CurrencyMoney[]> {
  const res = await db.raw(
    `WITH per AS (
       SELECT version_id, currency, count(at_risk)::int AS n, coalesce(sum(difference), 0) AS difference, coalesce(sum(at_risk), 0) AS at_risk
         FROM report_version_orders
        WHERE version_id IN (?::bigint, ?::bigint) AND currency IS NOT NULL AND at_risk IS NOT NULL
        GROUP BY version_id, currency),
     a AS (SELECT * FROM per WHERE version_id = ?::bigint),
     b AS (SELECT * FROM per WHERE version_id = ?::bigint)
     SELECT coalesce(a.currency, b.currency) AS currency,
            coalesce(a.n, 0) AS orders_before, coalesce(b.n, 0) AS orders_after,
            coalesce(a.difference, 0)::text AS difference_before, coalesce(b.difference, 0)::text AS difference_after,
            coalesce(a.at_risk, 0)::text AS at_risk_before, coalesce(b.at_risk, 0)::text AS at_risk_after,
            (coalesce(b.at_risk, 0) - coalesce(a.at_risk, 0))::text AS at_risk_change
       FROM a FULL JOIN b ON a.currency = b.currency
      ORDER BY 1`,
    [beforeId ?? afterId, afterId, beforeId ?? '0', afterId],
  );
  return rowsOf(res).map((r) => ({
    currency: text(r, 'currency'),
    ordersBefore: int(r, 'orders_before'),
    ordersAfter: int(r, 'orders_after'),
    differenceBefore: text(r, 'difference_before'),
    differenceAfter: text(r, 'difference_after'),
    atRiskBefore: text(r, 'at_risk_before'),
    atRiskAfter: text(r, 'at_risk_after'),
    atRiskChange: text(r, 'at_risk_change'),
  }));
}

/**
 * The orders whose verdict, codes or recorded amounts changed from one version to another, the first
 * `limit` by how much their money at stake moved (largest first), and how many.
 */
export async function changedOrders(
  db: Conn,
  beforeId: string,
  afterId: string,
  limit: number,
): Promise<{ total: number; rows: ChangedOrder[] }> {
  const res = await db.raw(
    `WITH a AS (SELECT direction, order_id, verdict, codes, currency, difference, at_risk FROM report_version_orders WHERE version_id = ?::bigint),
          b AS (SELECT direction, order_id, verdict, codes, currency, difference, at_risk FROM report_version_orders WHERE version_id = ?::bigint),
          d AS (
            SELECT coalesce(a.direction, b.direction) AS direction, coalesce(a.order_id, b.order_id) AS order_id,
                   coalesce(b.currency, a.currency) AS currency,
                   a.verdict AS before_verdict, a.codes AS before_codes, a.difference AS before_difference, a.at_risk AS before_at_risk,
                   b.verdict AS after_verdict, b.codes AS after_codes, b.difference AS after_difference, b.at_risk AS after_at_risk
              FROM a FULL JOIN b ON a.direction = b.direction AND a.order_id = b.order_id
             WHERE a.verdict IS DISTINCT FROM b.verdict OR a.codes IS DISTINCT FROM b.codes
                OR (a.currency IS NOT NULL AND b.currency IS NOT NULL AND a.difference IS DISTINCT FROM b.difference))
     SELECT d.direction, d.order_id::text AS order_id, d.currency, d.before_verdict, d.before_codes, d.after_verdict, d.after_codes,
            d.before_difference::text AS before_difference, d.before_at_risk::text AS before_at_risk,
            d.after_difference::text AS after_difference, d.after_at_risk::text AS after_at_risk,
            coalesce(p.merchant_ref, q.merchant_ref) AS merchant_ref, count(*) OVER () AS total
       FROM d
       LEFT JOIN payment_orders p ON d.direction = 'payment' AND p.id = d.order_id
       LEFT JOIN payout_orders q ON d.direction = 'payout' AND q.id = d.order_id
      ORDER BY abs(coalesce(d.after_at_risk, 0) - coalesce(d.before_at_risk, 0)) DESC, d.direction, d.order_id
      LIMIT ?`,
    [beforeId, afterId, limit],
  );
  const side = (r: Row, prefix: 'before' | 'after'): RecordedOrder | null => {
    const verdict = textOrNull(r, `${prefix}_verdict`);
    return verdict === null
      ? null
      : {
          verdict,
          codes: texts(r, `${prefix}_codes`),
          difference: textOrNull(r, `${prefix}_difference`),
          atRisk: textOrNull(r, `${prefix}_at_risk`),
        };
  };
  const rows = rowsOf(res);
  return {
    total: rows.length ? count(rows[0], 'total') : 0,
    rows: rows.map((r) => ({
      direction: oneOf(r, 'direction', DIRECTIONS),
      orderId: text(r, 'order_id'),
      merchantRef: textOrNull(r, 'merchant_ref'),
      currency: textOrNull(r, 'currency'),
      before: side(r, 'before'),
      after: side(r, 'after'),
    })),
  };
}
