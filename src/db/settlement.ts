import type { Knex } from 'knex';
import type { Currency } from '../money/decimal.ts';
import { DIRECTIONS } from '../domain/types.ts';
import { date, int, oneOf, oneRow, rowsOf, text, textOrNull } from './row.ts';
import { bindingsOf, param, sql } from './sql-text.ts';

type Conn = Knex | Knex.Transaction;

/** What the orders say moved a balance (the provider's fee and paid amount where known): SUM()s as decimal text, null when no order matched. */
export interface SettlementSums {
  payments: {
    paidAmount: string | null;
    fee: string | null;
    count: number;
    /** Σ (amount − paid) over those paid below the merchant's amount (the short_payment entry); absent when none. */
    short?: { total: string; count: number };
  };
  payouts: { amount: string | null; fee: string | null; count: number };
}

/** A balance reading's bounds, as timestamptz text or Dates: from the request to the answer. */
export interface ReadingBounds {
  from: Date | string;
  to: Date | string;
}

/** An order the provider settled whose finality interval overlaps the window; amounts decimal text. */
export interface FinalityCandidate {
  direction: 'payment' | 'payout';
  orderId: string;
  merchantRef: string;
  /** payments: paid (or amount) − fee; payouts: −(amount + fee). */
  effect: string;
  /** Last seen open at the provider (or created), and first seen success there. */
  from: Date;
  to: Date;
}

// An order the provider's answers said success (provider_success_at: the first check, or confirmed notification,
// that saw it so), whose finality interval (last seen open at the provider or created, first seen success]
// overlaps the window between two readings (opening_from: the opening reading's start, closing_to: the closing
// one's end). The merchant's status plays no part: an order recorded Success that the provider keeps Pending or
// fails moved nothing, one recorded Failed that the provider settled did (issue 43; the disagreement is the
// order's STATUS finding). The range test is what finds them through the *_provider_finality index (sql/040):
// a superset of the two exact conditions beside it, which decide.
const OVERLAPS = sql`currency = ${param('currency')} AND (${param('account')}::text = '' OR account_id = ${param('account')}::text)
  AND provider_success_at > ${param('opening_from')}::timestamptz
  AND coalesce(open_seen_at, created_at) < ${param('closing_to')}::timestamptz AND provider_success_at IS NOT NULL
  AND tstzrange(least(coalesce(open_seen_at, created_at), provider_success_at), provider_success_at, '[]')
      && tstzrange(${param('opening_from')}::timestamptz, greatest(${param('opening_from')}::timestamptz, ${param('closing_to')}::timestamptz), '[]')`;
// ...and certainly inside it: seen open after the opening reading ended, seen success before the closing one began.
const INSIDE = sql`coalesce(open_seen_at, created_at) >= ${param('opening_to')}::timestamptz AND provider_success_at <= ${param('closing_from')}::timestamptz`;

// The balance moved by what the provider collected and charged (its answer, kept in provider_*), never by the
// merchant's record (a FEE or PAID_AMOUNT finding). An order counted here has had a provider answer, so these
// are set; provider_amount is NULL only for an order a confirmed notification finalized (its amount is the
// provider's: the identity checks compare it) or one finalized before sql/040 with no check.
const AMOUNT = 'coalesce(provider_amount, amount)';
const PAID = `coalesce(provider_paid_amount, ${AMOUNT})`;
// provider_fee is NULL only for orders finalized before sql/023, whose fee column then held the provider's.
const FEE = 'coalesce(provider_fee, fee)';

const WINDOW_SUMS = sql`WITH p AS (
       SELECT sum(${PAID})::text AS paid, sum(${FEE})::text AS fee, count(*)::int AS n,
              -- Paid below the merchant's amount (its receivable): the rest, for the short_payment entry.
              sum(amount - ${PAID}) FILTER (WHERE ${PAID} < amount)::text AS short, count(*) FILTER (WHERE ${PAID} < amount)::int AS short_n
         FROM payment_orders WHERE ${OVERLAPS} AND ${INSIDE}
     ),
     q AS (
       SELECT sum(${AMOUNT})::text AS amount, sum(${FEE})::text AS fee, count(*)::int AS n
         FROM payout_orders WHERE ${OVERLAPS} AND ${INSIDE}
     )
     SELECT p.paid, p.fee AS p_fee, p.n AS p_n, p.short, p.short_n, q.amount, q.fee AS q_fee, q.n AS q_n FROM p, q`;

const WINDOW_CANDIDATES = sql`SELECT 'payment' AS direction, id::text AS order_id, merchant_ref, (${PAID} - coalesce(${FEE}, 0))::text AS effect,
            coalesce(open_seen_at, created_at) AS lo, provider_success_at AS hi
       FROM payment_orders WHERE ${OVERLAPS} AND NOT (${INSIDE})
     UNION ALL
     SELECT 'payout', id::text, merchant_ref, (-(${AMOUNT} + coalesce(${FEE}, 0)))::text, coalesce(open_seen_at, created_at), provider_success_at
       FROM payout_orders WHERE ${OVERLAPS} AND NOT (${INSIDE})
     ORDER BY 1, 2`;

const instant = (t: Date | string): string => (typeof t === 'string' ? t : t.toISOString());

/**
 * The window between two readings, split the way the roll-forward needs it: sums of the orders the
 * provider settled certainly inside it (seen open after the opening reading ended, or created after it,
 * and seen final before the closing reading began), and the few whose finality interval overlaps
 * either reading, one row each (timing-item candidates).
 */
export async function settlementWindow(
  db: Conn,
  currency: Currency | string,
  opening: ReadingBounds,
  closing: ReadingBounds,
  /** Only this account's orders (several accounts configured); undefined: every order. */
  account?: string,
): Promise<{ sums: SettlementSums; candidates: FinalityCandidate[] }> {
  const values = {
    currency,
    // '' (never an account id): every account's orders.
    account: account ?? '',
    opening_from: instant(opening.from),
    opening_to: instant(opening.to),
    closing_from: instant(closing.from),
    closing_to: instant(closing.to),
  };
  const r = oneRow(await db.raw(WINDOW_SUMS.text, bindingsOf(WINDOW_SUMS, values)));
  const rows = await db.raw(WINDOW_CANDIDATES.text, bindingsOf(WINDOW_CANDIDATES, values));
  return {
    sums: {
      payments: {
        paidAmount: textOrNull(r, 'paid'),
        fee: textOrNull(r, 'p_fee'),
        count: int(r, 'p_n'),
        ...(int(r, 'short_n') > 0 ? { short: { total: text(r, 'short'), count: int(r, 'short_n') } } : {}),
      },
      payouts: { amount: textOrNull(r, 'amount'), fee: textOrNull(r, 'q_fee'), count: int(r, 'q_n') },
    },
    candidates: rowsOf(rows).map((c) => ({
      direction: oneOf(c, 'direction', DIRECTIONS),
      orderId: text(c, 'order_id'),
      merchantRef: text(c, 'merchant_ref'),
      effect: text(c, 'effect'),
      from: date(c, 'lo'),
      to: date(c, 'hi'),
    })),
  };
}

/** One roll-forward between consecutive snapshots, as stored in balance_checks (amounts decimal text). */
export interface NewBalanceCheck {
  runId: string | null;
  currency: Currency;
  /** The account whose window this is; left out: the column's default ('default'). */
  accountId?: string;
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
  /** The timing items with the side each was assigned to (JSON). */
  timingItems: readonly unknown[];
  timingMovement: string;
  /** What approved movements certainly inside the window explained, and how many. */
  movementsMovement: string;
  movementsCount: number;
  checkedAt: Date;
}

/** A check's figures, in the column order both the insert and the re-judgement write them. */
function windowFigures(c: NewBalanceCheck): Array<string | number | boolean | Date> {
  return [
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
    JSON.stringify(c.timingItems),
    c.timingMovement,
    c.movementsMovement,
    c.movementsCount,
  ];
}

export async function insertBalanceCheck(db: Conn, c: NewBalanceCheck): Promise<string> {
  const res = await db.raw(
    `INSERT INTO balance_checks (run_id, currency, opening_snapshot_id, closing_snapshot_id, opening_total, explained_movement,
                                 expected_closing, closing_total, drift, tolerance, within_tolerance, payments_count, payouts_count, checked_at,
                                 timing_items, timing_movement, movements_movement, movements_count, account_id)
     VALUES (?, ?, ?::bigint, ?::bigint, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?, ?, ?, ?, ?::jsonb, ?::numeric,
             ?::numeric, ?, coalesce(?::text, 'default'))
     RETURNING id::text AS id`,
    [c.runId, c.currency, c.openingSnapshotId, c.closingSnapshotId, ...windowFigures(c), c.accountId ?? null],
  );
  return text(oneRow(res), 'id');
}

/**
 * A window judged again with the orders as they are now: its one row (UNIQUE per pair of snapshots) takes
 * the new figures; first_drift keeps the drift it was first judged with, rejudged_at when (sql/040).
 */
export async function rejudgeBalanceCheck(db: Conn, c: NewBalanceCheck): Promise<string> {
  const res = await db.raw(
    `UPDATE balance_checks SET run_id = ?, opening_total = ?::numeric, explained_movement = ?::numeric, expected_closing = ?::numeric,
            closing_total = ?::numeric, first_drift = coalesce(first_drift, drift), drift = ?::numeric, tolerance = ?::numeric,
            within_tolerance = ?, payments_count = ?, payouts_count = ?, rejudged_at = ?, timing_items = ?::jsonb, timing_movement = ?::numeric,
            movements_movement = ?::numeric, movements_count = ?
      WHERE opening_snapshot_id = ?::bigint AND closing_snapshot_id = ?::bigint
      RETURNING id::text AS id`,
    [c.runId, ...windowFigures(c), c.openingSnapshotId, c.closingSnapshotId],
  );
  return text(oneRow(res), 'id');
}
