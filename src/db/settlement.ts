import type { Knex } from 'knex';
import type { Currency } from '../money/decimal.ts';

type Conn = Knex | Knex.Transaction;

/** What the merchant's own orders say moved a balance: SUM()s as decimal text, null when no order matched. */
export interface SettlementSums {
  payments: { paidAmount: string | null; fee: string | null; count: number };
  payouts: { amount: string | null; fee: string | null; count: number };
}

/**
 * Orders of a currency that payrecon saw become final success in (after, upTo]; bounds may be
 * timestamptz text so microseconds survive. An order
 * finalized at the very instant of the opening snapshot is taken to be in that balance already.
 * paid_amount falls back to amount where none was recorded, as the report's roll-forward does,
 * so both checks agree.
 */
export async function settlementSums(
  db: Conn,
  currency: Currency | string,
  after: Date | string,
  upTo: Date | string,
): Promise<SettlementSums> {
  const res = (await db.raw(
    `WITH p AS (
       SELECT sum(coalesce(paid_amount, amount))::text AS paid, sum(fee)::text AS fee, count(*)::int AS n
         FROM payment_orders
        WHERE currency = ? AND status_category = 'success' AND finalized_at > ?::timestamptz AND finalized_at <= ?::timestamptz
     ),
     q AS (
       SELECT sum(amount)::text AS amount, sum(fee)::text AS fee, count(*)::int AS n
         FROM payout_orders
        WHERE currency = ? AND status_category = 'success' AND finalized_at > ?::timestamptz AND finalized_at <= ?::timestamptz
     )
     SELECT p.paid, p.fee AS p_fee, p.n AS p_n, q.amount, q.fee AS q_fee, q.n AS q_n FROM p, q`,
    [currency, after, upTo, currency, after, upTo],
  )) as {
    rows: Array<{ paid: string | null; p_fee: string | null; p_n: number; amount: string | null; q_fee: string | null; q_n: number }>;
  };
  const r = res.rows[0];
  return {
    payments: { paidAmount: r.paid, fee: r.p_fee, count: Number(r.p_n) },
    payouts: { amount: r.amount, fee: r.q_fee, count: Number(r.q_n) },
  };
}

/** One roll-forward between consecutive snapshots, as stored in balance_checks (amounts decimal text). */
export interface NewBalanceCheck {
  runId: string | null;
  currency: Currency;
  openingSnapshotId: string;
  closingSnapshotId: string;
  openingTotal: string;
  explainedMovement: string;
  expectedClosing: string;
  closingTotal: string;
  drift: string;
  tolerance: string;
  withinTolerance: boolean;
  paymentsCount: number;
  payoutsCount: number;
  checkedAt: Date;
}

export async function insertBalanceCheck(db: Conn, c: NewBalanceCheck): Promise<string> {
  const res = (await db.raw(
    `INSERT INTO balance_checks (run_id, currency, opening_snapshot_id, closing_snapshot_id, opening_total, explained_movement,
                                 expected_closing, closing_total, drift, tolerance, within_tolerance, payments_count, payouts_count, checked_at)
     VALUES (?, ?, ?::bigint, ?::bigint, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?, ?, ?, ?)
     RETURNING id::text AS id`,
    [
      c.runId,
      c.currency,
      c.openingSnapshotId,
      c.closingSnapshotId,
      c.openingTotal,
      c.explainedMovement,
      c.expectedClosing,
      c.closingTotal,
      c.drift,
      c.tolerance,
      c.withinTolerance,
      c.paymentsCount,
      c.payoutsCount,
      c.checkedAt,
    ],
  )) as { rows: Array<{ id: string }> };
  return res.rows[0].id;
}
