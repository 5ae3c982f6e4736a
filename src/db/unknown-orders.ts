import type { Knex } from 'knex';
import type { Window } from './report-orders.ts';
import { rowsOf, text, textOrNull, type Row } from './row.ts';

/**
 * Orders the provider confirmed (a notification its fetch confirmed) that the merchant has no
 * record of: UNKNOWN_ORDER rows of a business day's report. Amounts as text, times as epoch
 * milliseconds, like every report query (see reports.ts).
 */
export interface UnknownOrderRow {
  direction: string;
  transaction_ref: string;
  merchant_ref: string | null;
  currency: string | null;
  method: string | null;
  /** The status the fetch confirming the latest confirmed notification of the day returned. */
  status: string | null;
  amount: string | null;
  paid_amount: string | null;
  fee: string | null;
  /** When the first confirmed notification for the ref was received: what places it on its business day. */
  first_received_at_ms: string;
  /** When the latest confirmed notification of the day was confirmed by fetch. */
  confirmed_at_ms: string | null;
}

function toUnknownOrder(r: Row): UnknownOrderRow {
  return {
    direction: text(r, 'direction'),
    transaction_ref: text(r, 'transaction_ref'),
    merchant_ref: textOrNull(r, 'merchant_ref'),
    currency: textOrNull(r, 'currency'),
    method: textOrNull(r, 'method'),
    status: textOrNull(r, 'status'),
    amount: textOrNull(r, 'amount'),
    paid_amount: textOrNull(r, 'paid_amount'),
    fee: textOrNull(r, 'fee'),
    first_received_at_ms: text(r, 'first_received_at_ms'),
    confirmed_at_ms: textOrNull(r, 'confirmed_at_ms'),
  };
}

const EPOCH_MS = (col: string) => `floor(extract(epoch from ${col}) * 1000)::bigint::text`;

/**
 * One row per (direction, transactionRef) whose first confirmed notification was received in the
 * window and for which no local order of that direction exists now, with the values of the
 * latest confirmed notification received in the window. A ref first confirmed on an earlier day
 * belongs to that day's report, never to two. Report order: direction, merchant_ref (byte
 * order), transaction_ref. Uses webhook_events_ref for the per-ref lookups.
 */
export async function unknownOrdersReceived(db: Knex | Knex.Transaction, window: Window, account?: string): Promise<UnknownOrderRow[]> {
  const res = await db.raw(`SELECT * FROM (${UNKNOWN_SQL}) u ORDER BY direction, merchant_ref COLLATE "C", transaction_ref COLLATE "C"`, [
    window.from,
    window.to,
    window.from,
    account ?? null,
    account ?? null,
  ]);
  return rowsOf(res).map(toUnknownOrder);
}

/** An unknown order of an earlier day, with that business day in the report's zone. */
export interface OpenUnknownOrderRow extends UnknownOrderRow {
  business_date: string;
}

/**
 * The unknown orders of earlier days (first confirmed in `earlier`) still open: no local order has
 * their transactionRef yet. Like a mismatched order, one stays open whatever its case says (the
 * case columns show it resolved or written off). Oldest business day first.
 */
export async function unknownOrdersOpen(
  db: Knex | Knex.Transaction,
  earlier: Window,
  zone: string,
  /** Only this account's notifications (several accounts configured); undefined: every one. */
  account?: string,
): Promise<OpenUnknownOrderRow[]> {
  const res = await db.raw(
    `SELECT u.*, (to_timestamp(u.first_received_at_ms::bigint / 1000.0) AT TIME ZONE ?)::date::text AS business_date
       FROM (${UNKNOWN_SQL}) u
      ORDER BY business_date, direction, merchant_ref COLLATE "C", transaction_ref COLLATE "C"`,
    [zone, earlier.from, earlier.to, earlier.from, account ?? null, account ?? null],
  );
  return rowsOf(res).map((r) => ({ ...toUnknownOrder(r), business_date: text(r, 'business_date') }));
}

/** Bindings: from, to, from, account, account (null: every account's notifications, as with one). */
/**
 * Each value as the confirming fetch returned it (a notification may carry only transactionRef and
 * status); the notification's own for an event settled before the fetch's values were stored.
 */
const UNKNOWN_SQL = `SELECT DISTINCT ON (w.direction, w.transaction_ref)
      w.direction, w.transaction_ref, coalesce(w.fetched_merchant_ref, w.merchant_ref) AS merchant_ref,
      coalesce(w.fetched_currency, w.currency) AS currency, coalesce(w.fetched_method, w.method) AS method,
      coalesce(w.fetched_status, w.status) AS status,
      coalesce(w.fetched_amount, w.amount)::text AS amount, coalesce(w.fetched_paid_amount, w.paid_amount)::text AS paid_amount,
      coalesce(w.fetched_fee, w.fee)::text AS fee,
      ${EPOCH_MS('first.received_at')} AS first_received_at_ms, ${EPOCH_MS('w.confirmed_at')} AS confirmed_at_ms
    FROM webhook_events w
    CROSS JOIN LATERAL (
      SELECT min(e.received_at) AS received_at FROM webhook_events e
       WHERE e.direction = w.direction AND e.transaction_ref = w.transaction_ref AND e.confirmation = 'confirmed'
    ) first
   WHERE w.confirmation = 'confirmed' AND w.transaction_ref IS NOT NULL
     AND w.received_at >= ?::timestamptz AND w.received_at < ?::timestamptz
     AND first.received_at >= ?::timestamptz
     AND (?::text IS NULL OR w.account_id = ?::text)
     AND NOT (w.direction = 'payment' AND EXISTS (SELECT 1 FROM payment_orders p WHERE p.transaction_ref = w.transaction_ref))
     AND NOT (w.direction = 'payout' AND EXISTS (SELECT 1 FROM payout_orders p WHERE p.transaction_ref = w.transaction_ref))
   ORDER BY w.direction, w.transaction_ref, w.received_at DESC, w.id DESC`;
