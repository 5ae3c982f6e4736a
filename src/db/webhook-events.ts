import type { Knex } from 'knex';
import { DIRECTIONS, type Direction, type StatusCategory } from '../domain/types.ts';
import { decimal, decimalOrNull } from './amounts.ts';
import { ORDER_TABLES, toOrderRow, type OrderRow } from './orders.ts';
import type { Notification } from '../provider/types.ts';
import { canonicalRef } from '../domain/refs.ts';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';
import { bool, date, dateOrNull, id, int, oneOf, rowsOf, text, textOrNull, textRecord, type Row } from './row.ts';
import { arrayLiteral } from './unnest.ts';

type Conn = Knex | Knex.Transaction;

const CONFIRMATIONS = ['pending', 'confirmed', 'conflict', 'error'] as const;
export type Confirmation = (typeof CONFIRMATIONS)[number];

/** A verified notification as stored: its parsed fields, plus what makes it durable and deduplicable. */
export interface NewWebhookEvent extends Notification {
  dedupeKey: string;
  rawBody: string;
  headers: Record<string, string>;
  receivedAt: Date;
  /** The account whose secret signed it; unset: the column's default (one account). */
  accountId?: string;
}

export interface WebhookEventRow extends Omit<NewWebhookEvent, 'dedupeKey' | 'accountId'> {
  id: string;
  accountId: string;
  dedupeKey: string;
  deliveries: number;
  confirmation: Confirmation;
  confirmedAt: Date | null;
  confirmationNote: string | null;
}

export interface StoredResult {
  id: string;
  /** False: an identical notification was already stored; only its delivery count went up. */
  inserted: boolean;
  confirmation: Confirmation;
}

/**
 * Stores a notification, or counts one more delivery of an identical one: a single statement, so concurrent
 * retries of one notification can never create two rows, and the row is durable once this returns.
 */
export async function storeWebhookEvent(db: Conn, e: NewWebhookEvent): Promise<StoredResult> {
  const res = await db.raw(
    `INSERT INTO webhook_events (direction, dedupe_key, transaction_ref, merchant_ref, currency, method, amount, paid_amount, fee, status, raw_body, headers, received_at, account_id)
     VALUES (?, ?, ?, ?, ?, ?, ?::numeric, ?::numeric, ?::numeric, ?, ?, ?::jsonb, ?, ?)
     ON CONFLICT (dedupe_key) DO UPDATE SET deliveries = webhook_events.deliveries + 1
     RETURNING id, confirmation, (xmax = 0) AS inserted`,
    [
      e.direction,
      e.dedupeKey,
      e.transactionRef === null ? null : canonicalRef(e.transactionRef),
      e.merchantRef === null ? null : canonicalRef(e.merchantRef),
      e.currency,
      e.method,
      decimalOrNull(e.amount, 'amount'),
      decimalOrNull(e.paidAmount, 'paidAmount'),
      decimalOrNull(e.fee, 'fee'),
      e.status,
      e.rawBody,
      JSON.stringify(e.headers),
      e.receivedAt.toISOString(),
      e.accountId ?? DEFAULT_ACCOUNT_ID,
    ],
  );
  const [row] = rowsOf(res);
  return { id: id(row, 'id'), inserted: bool(row, 'inserted'), confirmation: oneOf(row, 'confirmation', CONFIRMATIONS) };
}

function toEventRow(r: Row): WebhookEventRow {
  return {
    id: id(r, 'id'),
    accountId: text(r, 'account_id'),
    direction: oneOf(r, 'direction', DIRECTIONS),
    dedupeKey: text(r, 'dedupe_key'),
    transactionRef: textOrNull(r, 'transaction_ref'),
    merchantRef: textOrNull(r, 'merchant_ref'),
    currency: textOrNull(r, 'currency'),
    method: textOrNull(r, 'method'),
    amount: textOrNull(r, 'amount'),
    paidAmount: textOrNull(r, 'paid_amount'),
    fee: textOrNull(r, 'fee'),
    status: textOrNull(r, 'status'),
    rawBody: text(r, 'raw_body'),
    headers: textRecord(r, 'headers'),
    receivedAt: date(r, 'received_at'),
    deliveries: int(r, 'deliveries'),
    confirmation: oneOf(r, 'confirmation', CONFIRMATIONS),
    confirmedAt: dateOrNull(r, 'confirmed_at'),
    confirmationNote: textOrNull(r, 'confirmation_note'),
  };
}

export async function getWebhookEvent(db: Conn, id: string): Promise<WebhookEventRow | null> {
  const row = await db('webhook_events').where({ id }).first();
  return row ? toEventRow(row) : null;
}

/** Locks one event for the confirming transaction; null if it is gone or no longer pending (someone else settled it). */
export async function lockPendingEvent(trx: Knex.Transaction, id: string): Promise<WebhookEventRow | null> {
  const row = await trx('webhook_events').where({ id, confirmation: 'pending' }).forUpdate().first();
  return row ? toEventRow(row) : null;
}

/** Oldest first: ids of events still waiting for confirmation. */
export async function listPendingEventIds(db: Conn, limit: number, afterId: string | null = null): Promise<string[]> {
  const q = db('webhook_events').where({ confirmation: 'pending' }).select('id').orderBy('id', 'asc').limit(limit);
  if (afterId !== null) q.where('id', '>', afterId);
  return (await q).map((r: Row) => id(r, 'id'));
}

/** What the confirming fetch answered: every field, where the notification may carry only some. */
export interface FetchedFields {
  merchantRef: string;
  currency: string;
  method: string;
  amount: string;
  paidAmount?: string;
  fee: string;
  status: string;
}

/**
 * Settles an event; with `fetched`, also stores what the confirming fetch said (the report's
 * UNKNOWN_ORDER rows show those values, see unknown-orders.ts).
 */
export async function settleEvent(
  trx: Conn,
  id: string,
  confirmation: Exclude<Confirmation, 'pending'>,
  note: string | null,
  at: Date,
  fetched?: FetchedFields,
): Promise<void> {
  const cols: Record<string, unknown> = { confirmation, confirmation_note: note, confirmed_at: at };
  if (fetched) {
    cols.fetched_merchant_ref = canonicalRef(fetched.merchantRef);
    cols.fetched_currency = fetched.currency;
    cols.fetched_method = fetched.method;
    cols.fetched_amount = decimalOrNull(fetched.amount, 'amount');
    cols.fetched_paid_amount = decimalOrNull(fetched.paidAmount ?? null, 'paidAmount');
    cols.fetched_fee = decimalOrNull(fetched.fee, 'fee');
    cols.fetched_status = fetched.status;
  }
  await trx('webhook_events').where({ id }).update(cols);
}

/** A transient failure: the event stays pending (retried later), the note says what went wrong last. */
export async function noteEvent(db: Conn, id: string, note: string): Promise<void> {
  await db('webhook_events').where({ id, confirmation: 'pending' }).update({ confirmation_note: note });
}

export async function findOrderByTransactionRef(db: Conn, direction: Direction, transactionRef: string): Promise<OrderRow | null> {
  // Locked: the order is read and conditionally written in the same confirming transaction.
  const row = await db(ORDER_TABLES[direction])
    .where({ transaction_ref: canonicalRef(transactionRef) })
    .forUpdate()
    .first();
  return row ? toOrderRow(direction, row) : null;
}

/** Each optional value is left as it is when absent: a value the merchant recorded is never overwritten. */
export interface ConfirmedFinal {
  status: string;
  statusCategory: StatusCategory;
  fee?: string;
  /** Payments only. */
  paidAmount?: string;
  /** Payouts only. */
  utr?: string;
  /** The provider's own figures, kept beside the merchant's for the settlement roll-forward (sql/023). */
  providerFee: string;
  /** Payments only. */
  providerPaidAmount?: string;
  /** A recorded value disagrees with the provider's: the next reconcile run checks the order (and raises the finding). */
  recheck?: boolean;
  at: Date;
}

/**
 * Writes a confirmed final status to a local order only while it is still non-final: a final local status
 * never moves, and of two racing writers (webhook, reconcile) only the first applies. Returns rows changed.
 */
export async function applyConfirmedFinal(trx: Conn, direction: Direction, orderId: string, f: ConfirmedFinal): Promise<number> {
  const cols: Record<string, unknown> = {
    status: f.status,
    status_category: f.statusCategory,
    provider_fee: decimal(f.providerFee, 'providerFee'),
    // The confirming fetch is the provider's answer: it moves the roll-forward as a check's would (sql/040).
    provider_category: f.statusCategory,
    ...(f.statusCategory === 'success' && { provider_success_at: f.at }),
    finalized_at: f.at,
    updated_at: f.at,
    // Final: the reconcile job's schedule no longer needs to visit it, unless a recorded value disagrees.
    next_check_at: f.recheck ? f.at : null,
  };
  if (f.fee !== undefined) cols.fee = decimal(f.fee, 'fee');
  if (direction === 'payment') {
    if (f.paidAmount !== undefined) cols.paid_amount = decimal(f.paidAmount, 'paidAmount');
    if (f.providerPaidAmount !== undefined) cols.provider_paid_amount = decimal(f.providerPaidAmount, 'providerPaidAmount');
  } else if (f.utr !== undefined) cols.utr = f.utr;
  return trx(ORDER_TABLES[direction]).where({ id: orderId }).whereIn('status_category', ['pending', 'unknown']).update(cols);
}

/** Per transactionRef among refs: whether any notification was stored, and the note of a contradicted one. */
export async function notificationStates(
  db: Conn,
  direction: Direction,
  refs: readonly string[],
): Promise<Map<string, { received: boolean; conflict: string | null }>> {
  const out = new Map<string, { received: boolean; conflict: string | null }>();
  if (refs.length === 0) return out;
  const rows: Array<{ transaction_ref: string; confirmation: string; confirmation_note: string | null }> = await db('webhook_events')
    .where({ direction })
    // One array parameter, not an IN list of a page's 500 refs (500 bind parameters to build, send and plan).
    .whereRaw('transaction_ref = ANY (?::text[])', [arrayLiteral(refs, (ref) => ref, 'transaction_ref')])
    .select('transaction_ref', 'confirmation', 'confirmation_note')
    .orderBy('id');
  for (const r of rows) {
    const state = out.get(r.transaction_ref) ?? { received: false, conflict: null };
    state.received = true;
    if (r.confirmation === 'conflict') state.conflict ??= r.confirmation_note ?? "the provider's fetch contradicts the notification";
    out.set(r.transaction_ref, state);
  }
  return out;
}
