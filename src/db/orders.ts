import type { Knex } from 'knex';
import { CURRENCIES, type Currency } from '../money/decimal.ts';
import { STATUS_CATEGORIES, type Direction, type StatusCategory } from '../domain/types.ts';
import { decimal, decimalOrNull } from './amounts.ts';
import { isValueRefusal } from './refusal.ts';
import { count, date, dateOrNull, id, int, oneOf, rowsOf, text, textOrNull, type Row } from './row.ts';
import { arrayLiteral, timestampOrNull, unnestRows, type UnnestColumn } from './unnest.ts';
import { canonicalRef } from '../domain/refs.ts';

type Conn = Knex | Knex.Transaction;

/** The merchant's order as payrecon reads it. Ids are strings (int8); amounts are decimal text. */
export interface OrderRow {
  direction: Direction;
  id: string;
  merchantRef: string;
  transactionRef: string;
  currency: Currency;
  method: string;
  amount: string;
  /** Payments only; always null for payouts (no such column). */
  paidAmount: string | null;
  fee: string | null;
  /** Payouts only. */
  bankCode: string | null;
  /** Payouts only. */
  utr: string | null;
  status: string;
  statusCategory: StatusCategory;
  createdAt: Date;
  updatedAt: Date;
  finalizedAt: Date | null;
  /** Start of the last check that saw the order open: its finality lies after this. */
  openSeenAt?: Date | null;
  lastCheckedAt: Date | null;
  checkCount: number;
  nextCheckAt: Date | null;
}

export interface NewOrder {
  /** The account the order belongs to; unset: the table's default, "default" (the single account). */
  accountId?: string;
  merchantRef: string;
  transactionRef: string;
  currency: Currency;
  method: string;
  amount: string;
  paidAmount?: string | null;
  fee?: string | null;
  bankCode?: string | null;
  utr?: string | null;
  status?: string;
  statusCategory?: StatusCategory;
  createdAt?: Date;
  updatedAt?: Date;
  finalizedAt?: Date | null;
  nextCheckAt?: Date | null;
}

/** How old a never-checked order must be to be due, per direction (the policy's firstCheckMs); absent: due at once. */
export type FirstCheckMs = Readonly<Record<Direction, number>>;

/** Open orders due by `at`: their re-check time reached, or never checked and old enough. */
function dueBy(q: Knex.QueryBuilder, direction: Direction, at: Date, firstCheckMs: FirstCheckMs | undefined): void {
  const delay = firstCheckMs?.[direction] ?? 0;
  q.where((w) =>
    w
      .where((never) => {
        never.whereNull('next_check_at');
        if (delay > 0) never.where('created_at', '<=', new Date(at.getTime() - delay));
      })
      .orWhere('next_check_at', '<=', at),
  );
}

export type OrderFilter = (
  | { mode: 'due'; asOf: Date; lookbackFrom: Date; finalRecheckBefore?: Date; firstCheckMs?: FirstCheckMs }
  | { mode: 'range'; from: Date; to: Date }
  | { mode: 'ref'; ref: string }
  /** dueBy: only the open orders due by then (a never-checked one: see firstCheck); absent: every open order. */
  | { mode: 'open'; lookbackFrom: Date; dueBy?: Date; firstCheckMs?: FirstCheckMs }
) & {
  currency?: Currency;
  /** Only this account's orders (several accounts configured); absent: every order, as with one account. */
  accountId?: string;
};

/**
 * The values of an order a check was computed from. A check's write applies only while the row still
 * holds them: a webhook, the merchant or another writer that changed the order meanwhile wins, and
 * the check is taken again instead of overwriting (see applyCheckResults).
 */
export interface OrderState {
  merchantRef: string;
  currency: string;
  method: string;
  amount: string;
  status: string;
  statusCategory: StatusCategory;
  fee: string | null;
  /** Payments only. */
  paidAmount: string | null;
  /** Payouts only. */
  utr: string | null;
  checkCount: number;
}

export interface CheckUpdate {
  id: string;
  /** What the check saw; the write is conditional on it. */
  expected: OrderState;
  checkedAt: Date;
  /** Null: no further check scheduled. */
  nextCheckAt: Date | null;
  // Each of the following is left unchanged when undefined.
  status?: string;
  statusCategory?: StatusCategory;
  /** Payments only. */
  paidAmount?: string;
  fee?: string;
  /** Payouts only. */
  utr?: string;
  finalizedAt?: Date;
  /** The provider's status category and amount from this check, kept beside the merchant's (sql/040). */
  providerCategory?: StatusCategory;
  providerAmount?: string;
  /** The provider's own fee and (payments) paidAmount from this check, kept beside the merchant's (see sql/023). */
  providerFee?: string;
  /** Payments only. */
  providerPaidAmount?: string;
  /** When the check that saw the order open was sent; only ever moves forward. */
  openSeenAt?: Date;
  updatedAt?: Date;
}

export const ORDER_TABLES: Readonly<Record<Direction, string>> = Object.freeze({
  payment: 'payment_orders',
  payout: 'payout_orders',
});

const tableOf = (direction: Direction): string => {
  const t = ORDER_TABLES[direction];
  if (!t) throw new TypeError(`unknown direction ${JSON.stringify(direction)}`);
  return t;
};

// Payments: 14 columns; 1000 rows stay well under Postgres' 65535 bind parameters per statement.
const INSERT_CHUNK = 1000;

/** Bulk insert (chunked multi-row statements); returns the inserted rows in input order. */
export async function insertOrders(db: Conn, direction: Direction, rows: readonly NewOrder[]): Promise<OrderRow[]> {
  const out: OrderRow[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK).map((r) => toColumns(direction, r));
    const inserted = await db(tableOf(direction)).insert(chunk).returning('*');
    out.push(...inserted.map((r: Row) => toOrderRow(direction, r)));
  }
  return out;
}

/** Column values for one order; undefined columns take the table's defaults. */
export function toColumns(direction: Direction, r: NewOrder): Record<string, unknown> {
  if (direction === 'payment' && (r.bankCode != null || r.utr != null)) {
    throw new TypeError(`payment ${r.merchantRef}: bankCode and utr are payout fields`);
  }
  if (direction === 'payout' && r.paidAmount != null) {
    throw new TypeError(`payout ${r.merchantRef}: paidAmount is a payment field`);
  }
  const cols: Record<string, unknown> = {
    merchant_ref: canonicalRef(r.merchantRef),
    transaction_ref: canonicalRef(r.transactionRef),
    currency: r.currency,
    method: r.method,
    amount: decimal(r.amount, 'amount'),
    fee: decimalOrNull(r.fee, 'fee'),
    status: r.status,
    status_category: r.statusCategory,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    finalized_at: r.finalizedAt,
    next_check_at: r.nextCheckAt,
  };
  if (r.accountId !== undefined) cols.account_id = r.accountId;
  if (direction === 'payment') cols.paid_amount = decimalOrNull(r.paidAmount, 'paidAmount');
  else Object.assign(cols, { bank_code: r.bankCode ?? null, utr: r.utr ?? null });
  return cols;
}

/**
 * An order as a check reads it: every column but the bookkeeping times a check never reads (when the
 * row was last updated, checked, seen open, and is next due). A run reads it for every order; each
 * timestamp is a Date parsed from text, so the four are not selected (the console's order page reads
 * the whole row, OrderRow).
 */
export type CheckedOrderRow = Omit<OrderRow, 'updatedAt' | 'openSeenAt' | 'lastCheckedAt' | 'nextCheckAt'>;

/** An order row of either table; the columns of the other direction (paid_amount, or bank_code and utr) read as null. */
export function toOrderRow(direction: Direction, r: Row): OrderRow {
  return {
    ...toCheckedOrderRow(direction, r),
    updatedAt: date(r, 'updated_at'),
    openSeenAt: dateOrNull(r, 'open_seen_at'),
    lastCheckedAt: dateOrNull(r, 'last_checked_at'),
    nextCheckAt: dateOrNull(r, 'next_check_at'),
  };
}

/** The columns a check reads (CHECKED_ORDER_COLUMNS) as a CheckedOrderRow. */
function toCheckedOrderRow(direction: Direction, r: Row): CheckedOrderRow {
  return {
    direction,
    id: id(r, 'id'),
    merchantRef: text(r, 'merchant_ref'),
    transactionRef: text(r, 'transaction_ref'),
    currency: oneOf(r, 'currency', CURRENCIES),
    method: text(r, 'method'),
    amount: text(r, 'amount'),
    paidAmount: textOrNull(r, 'paid_amount'),
    fee: textOrNull(r, 'fee'),
    bankCode: textOrNull(r, 'bank_code'),
    utr: textOrNull(r, 'utr'),
    status: text(r, 'status'),
    statusCategory: oneOf(r, 'status_category', STATUS_CATEGORIES),
    createdAt: date(r, 'created_at'),
    finalizedAt: dateOrNull(r, 'finalized_at'),
    checkCount: int(r, 'check_count'),
  };
}

/**
 * The columns toCheckedOrderRow reads, per table: a check's read of its orders selects these, not `*`
 * (the provider's figures, the account, the finality's end and the bookkeeping times are written by
 * checks, never read by them: the driver parsing them, timestamps among them, cost every order of a run
 * for nothing).
 */
const SHARED_ORDER_COLUMNS = [
  'id',
  'merchant_ref',
  'transaction_ref',
  'currency',
  'method',
  'amount',
  'fee',
  'status',
  'status_category',
  'created_at',
  'finalized_at',
  'check_count',
];
const CHECKED_ORDER_COLUMNS: Readonly<Record<Direction, readonly string[]>> = {
  payment: [...SHARED_ORDER_COLUMNS, 'paid_amount'],
  payout: [...SHARED_ORDER_COLUMNS, 'bank_code', 'utr'],
};

export type DueFilter = Extract<OrderFilter, { mode: 'due' }>;
type Where = (q: Knex.QueryBuilder) => void;

/** The due sweep's three ways to be due, each a condition on one order row. */
function dueBranches(direction: Direction, filter: DueFilter): Where[] {
  const { asOf, finalRecheckBefore, lookbackFrom } = filter;
  const branches: Where[] = [];
  // Open orders of the lookback whose re-check time came (payment_orders_open / _due).
  branches.push((q) => {
    q.where('created_at', '>=', lookbackFrom).whereIn('status_category', ['pending', 'unknown']);
    dueBy(q, direction, asOf, filter.firstCheckMs);
  });
  // The low-rate re-check of final orders: a provider may reverse a success or correct a fee later.
  // Counted from the last time the provider was asked: a check, or the fetch confirming a
  // notification (it sets finalized_at), whichever is later, so a just-confirmed order is not fetched again.
  if (finalRecheckBefore) {
    branches.push((q) =>
      q
        .where('created_at', '>=', lookbackFrom)
        .whereIn('status_category', ['success', 'failed'])
        .whereRaw('coalesce(greatest(last_checked_at, finalized_at), created_at) < ?', [finalRecheckBefore]),
    );
  }
  // Final orders someone asked to re-check (requestRecheck: a confirmed notification contradicting them), however old (*_recheck).
  branches.push((q) => q.whereIn('status_category', ['success', 'failed']).where('next_check_at', '<=', asOf));
  return branches;
}

function filtered(db: Conn, direction: Direction, filter: OrderFilter): Knex.QueryBuilder {
  const q = db(tableOf(direction));
  switch (filter.mode) {
    case 'due': {
      // Each branch on an index of its own, so a sweep reads what is due and its lookback window, never
      // the whole history: as one top-level OR the planner walked the primary key over every order
      // ever imported for a page of due ones (60 days of 3,000: 90,000 rows per page; a year: millions).
      const [first, ...rest] = dueBranches(direction, filter).map((where) => db(tableOf(direction)).select('id').where(where));
      // = ANY(ARRAY(...)): the due ids are found first and then fetched by primary key; as `IN (...)` the
      // planner could still walk the primary key from the oldest order to return them in id order.
      q.whereRaw('id = ANY(ARRAY(?))', [rest.length > 0 ? first.unionAll(rest) : first]);
      break;
    }
    case 'range':
      q.where('created_at', '>=', filter.from).where('created_at', '<', filter.to);
      break;
    case 'open':
      // Open in the merchant's books, or at the provider as last seen, or never asked about: the orders whose
      // provider status may still move the balance (payment_orders_open, payment_orders_provider_open).
      q.where('created_at', '>=', filter.lookbackFrom).where((w) =>
        w
          .whereIn('status_category', ['pending', 'unknown'])
          .orWhereNull('last_checked_at')
          .orWhereIn('provider_category', ['pending', 'unknown']),
      );
      if (filter.dueBy) dueBy(q, direction, filter.dueBy, filter.firstCheckMs);
      break;
    case 'ref':
      q.where((w) => w.where('merchant_ref', canonicalRef(filter.ref)).orWhere('transaction_ref', canonicalRef(filter.ref)));
      break;
    default:
      throw new TypeError(`unknown order filter ${JSON.stringify(filter)}`);
  }
  if (filter.currency) q.where('currency', filter.currency);
  if (filter.accountId) q.where('account_id', filter.accountId);
  return q;
}

/** One keyset page: orders with id > afterId (null: from the start), ascending id, at most limit. */
export async function selectOrdersPage(
  db: Conn,
  direction: Direction,
  filter: OrderFilter,
  afterId: string | null,
  limit: number,
): Promise<CheckedOrderRow[]> {
  const q = filtered(db, direction, filter);
  if (afterId !== null) q.where('id', '>', afterId);
  const rows = await q.select(CHECKED_ORDER_COLUMNS[direction]).orderBy('id', 'asc').limit(limit);
  return rows.map((r: Row) => toCheckedOrderRow(direction, r));
}

/**
 * The ids a due sweep selects after afterId (null: from the start), ascending. A pass finds them once
 * and reads them a page at a time (selectDueOrders): found again in every page's query, every due id
 * was read on every page, O(N²) per run (issue 30). One aggregated text keeps 1M ids to ~10 MB in transit.
 */
export async function selectDueIds(db: Conn, direction: Direction, filter: DueFilter, afterId: string | null): Promise<IdList> {
  const q = filtered(db, direction, filter);
  if (afterId !== null) q.where('id', '>', afterId);
  const [row] = await q.select(db.raw(`coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids`));
  return new IdList(text(row, 'ids'));
}

/**
 * Ascending ids kept as the one comma-separated text the database returned, read a page at a time:
 * a million ids as one string of ~8 MB, where a million separate strings cost tens of MB more.
 */
export class IdList {
  private at = 0;
  constructor(private readonly joined: string) {}

  /** The next (at most) `size` ids; empty once every id was read. */
  next(size: number): string[] {
    const page: string[] = [];
    while (page.length < size && this.at < this.joined.length) {
      const comma = this.joined.indexOf(',', this.at);
      const end = comma === -1 ? this.joined.length : comma;
      // Kept as text: a bigint id past 2^53 would not survive a number.
      page.push(this.joined.slice(this.at, end));
      this.at = end + 1;
    }
    return page;
  }
}

/**
 * The orders of these ids (ascending, from selectDueIds) that are still due, ascending: one that
 * stopped being due since the ids were found (a webhook made it final) is left out, as a page's
 * query left it out before.
 */
export async function selectDueOrders(
  db: Conn,
  direction: Direction,
  filter: DueFilter,
  ids: readonly string[],
): Promise<CheckedOrderRow[]> {
  if (ids.length === 0) return [];
  const q = db(tableOf(direction))
    .whereRaw('id = ANY(?::int8[])', [arrayLiteral(ids, (id) => id, 'id')])
    .where((w) => {
      for (const branch of dueBranches(direction, filter)) w.orWhere(branch);
    });
  if (filter.currency) q.where('currency', filter.currency);
  if (filter.accountId) q.where('account_id', filter.accountId);
  const rows = await q.select(CHECKED_ORDER_COLUMNS[direction]).orderBy('id', 'asc');
  return rows.map((r: Row) => toCheckedOrderRow(direction, r));
}

/**
 * Asks the next due reconcile run to check a final order again (final orders are otherwise never due):
 * e.g. the provider confirmed a notification contradicting its final status. Returns rows changed.
 */
export async function requestRecheck(db: Conn, direction: Direction, id: string, at: Date): Promise<number> {
  return db(tableOf(direction)).where({ id }).whereIn('status_category', ['success', 'failed']).update({ next_check_at: at });
}

/** Orders by id, ascending (a re-check reads them as they are now). */
export async function selectOrdersByIds(db: Conn, direction: Direction, ids: readonly string[]): Promise<CheckedOrderRow[]> {
  if (ids.length === 0) return [];
  const rows = await db(tableOf(direction))
    // knex's whereIn type takes a mutable array; it only reads it.
    .whereIn('id', ids as string[])
    .select(CHECKED_ORDER_COLUMNS[direction])
    .orderBy('id', 'asc');
  return rows.map((r: Row) => toCheckedOrderRow(direction, r));
}

export async function countOrders(db: Conn, direction: Direction, filter: OrderFilter): Promise<number> {
  const [row] = await filtered(db, direction, filter).count('* as n');
  return count(row, 'n');
}

/** A batch of checks as unnest arrays (unnest.ts): the new values, then the state each was computed from (was_*). */
function checkUpdateColumns(direction: Direction): UnnestColumn<CheckUpdate>[] {
  const payment = direction === 'payment';
  const extraType = payment ? 'numeric' : 'text';
  const columns: UnnestColumn<CheckUpdate>[] = [
    { name: 'id', type: 'bigint', value: (u) => u.id },
    { name: 'checked_at', type: 'timestamptz', value: (u) => timestampOrNull(u.checkedAt) },
    { name: 'next_check_at', type: 'timestamptz', value: (u) => timestampOrNull(u.nextCheckAt) },
    { name: 'status', type: 'text', value: (u) => u.status ?? null },
    { name: 'status_category', type: 'text', value: (u) => u.statusCategory ?? null },
    { name: 'fee', type: 'numeric', value: (u) => decimalOrNull(u.fee, 'fee') },
    { name: 'extra', type: extraType, value: payment ? (u) => decimalOrNull(u.paidAmount, 'paidAmount') : (u) => u.utr ?? null },
    { name: 'finalized_at', type: 'timestamptz', value: (u) => timestampOrNull(u.finalizedAt) },
    { name: 'updated_at', type: 'timestamptz', value: (u) => timestampOrNull(u.updatedAt) },
    { name: 'was_merchant_ref', type: 'text', value: (u) => u.expected.merchantRef },
    { name: 'was_currency', type: 'text', value: (u) => u.expected.currency },
    { name: 'was_method', type: 'text', value: (u) => u.expected.method },
    { name: 'was_amount', type: 'numeric', value: (u) => decimal(u.expected.amount, 'expected.amount') },
    { name: 'was_status', type: 'text', value: (u) => u.expected.status },
    { name: 'was_status_category', type: 'text', value: (u) => u.expected.statusCategory },
    { name: 'was_fee', type: 'numeric', value: (u) => decimalOrNull(u.expected.fee, 'expected.fee') },
    {
      name: 'was_extra',
      type: extraType,
      value: payment ? (u) => decimalOrNull(u.expected.paidAmount, 'expected.paidAmount') : (u) => u.expected.utr,
    },
    { name: 'was_check_count', type: 'int', value: (u) => u.expected.checkCount },
    { name: 'open_seen_at', type: 'timestamptz', value: (u) => timestampOrNull(u.openSeenAt) },
    { name: 'provider_fee', type: 'numeric', value: (u) => decimalOrNull(u.providerFee, 'providerFee') },
    { name: 'provider_category', type: 'text', value: (u) => u.providerCategory ?? null },
    { name: 'provider_amount', type: 'numeric', value: (u) => decimalOrNull(u.providerAmount, 'providerAmount') },
  ];
  if (payment)
    columns.push({
      name: 'provider_paid_amount',
      type: 'numeric',
      value: (u) => decimalOrNull(u.providerPaidAmount, 'providerPaidAmount'),
    });
  return columns;
}

/** Built once per direction: fresh closures per batch were compiled again and again by V8. */
export const CHECK_UPDATE_COLUMNS: Readonly<Record<Direction, readonly UnnestColumn<CheckUpdate>[]>> = {
  payment: checkUpdateColumns('payment'),
  payout: checkUpdateColumns('payout'),
};

/**
 * Records one batch of checks in a single UPDATE ... FROM unnest(arrays): last_checked_at,
 * check_count + 1 and next_check_at always; the other fields only where given. Each row is written
 * only while it still holds the state its check was computed from (`expected`); a row changed
 * meanwhile (a confirmed webhook made it final, the merchant edited it) is left alone. Returns the
 * ids written: the caller re-checks the others.
 */
export async function applyCheckResults(trx: Conn, direction: Direction, updates: readonly CheckUpdate[]): Promise<string[]> {
  if (updates.length === 0) return [];
  assertCheckUpdates(direction, updates);
  const v = unnestRows(updates, CHECK_UPDATE_COLUMNS[direction]);
  const res = await trx.raw(checkUpdateStatement(direction, v.sql), v.bindings);
  return rowsOf(res).map((r) => id(r, 'id'));
}

/** What a batch of check updates must hold before it is written: one row per order, each field of its own direction. */
export function assertCheckUpdates(direction: Direction, updates: readonly CheckUpdate[]): void {
  const ids = new Set(updates.map((u) => u.id));
  // UPDATE ... FROM applies only one of several source rows for the same target: refuse the ambiguity.
  if (ids.size !== updates.length) throw new TypeError('check updates: duplicate order id in one batch');
  if (direction === 'payment' && updates.some((u) => u.utr !== undefined)) {
    throw new TypeError('check updates: utr is a payout field');
  }
  if (direction === 'payout' && updates.some((u) => u.paidAmount !== undefined || u.providerPaidAmount !== undefined)) {
    throw new TypeError('check updates: paidAmount is a payment field');
  }
}

/**
 * The conditional UPDATE of a batch of checks, reading its rows from `source`: `v` with the columns
 * of CHECK_UPDATE_COLUMNS (an unnest, or a WITH query of them), returning the ids it wrote.
 */
export function checkUpdateStatement(direction: Direction, source: string): string {
  const extra = direction === 'payment' ? 'paid_amount' : 'utr';
  // Only payments have a paid amount: a constant line of SQL or none, never a value.
  const PROVIDER_PAID_SET =
    direction === 'payment' ? '\n       provider_paid_amount = COALESCE(v.provider_paid_amount, o.provider_paid_amount),' : '';
  return `UPDATE ${tableOf(direction)} AS o SET
       last_checked_at = v.checked_at,
       check_count = o.check_count + 1,
       next_check_at = v.next_check_at,
       status = COALESCE(v.status, o.status),
       status_category = COALESCE(v.status_category, o.status_category),
       fee = COALESCE(v.fee, o.fee),
       ${extra} = COALESCE(v.extra, o.${extra}),
       finalized_at = COALESCE(v.finalized_at, o.finalized_at),
       open_seen_at = GREATEST(o.open_seen_at, v.open_seen_at),
       provider_fee = COALESCE(v.provider_fee, o.provider_fee),${PROVIDER_PAID_SET}
       provider_category = COALESCE(v.provider_category, o.provider_category),
       provider_amount = COALESCE(v.provider_amount, o.provider_amount),
       provider_success_at = CASE WHEN o.provider_success_at IS NULL AND v.provider_category = 'success' THEN v.checked_at
                                  ELSE o.provider_success_at END,
       updated_at = COALESCE(v.updated_at, o.updated_at)
     FROM ${source}
     WHERE o.id = v.id
       AND o.merchant_ref = v.was_merchant_ref AND o.currency = v.was_currency AND o.method = v.was_method
       AND o.amount = v.was_amount AND o.status = v.was_status AND o.status_category = v.was_status_category
       AND o.fee IS NOT DISTINCT FROM v.was_fee AND o.${extra} IS NOT DISTINCT FROM v.was_extra
       AND o.check_count = v.was_check_count
     RETURNING o.id`;
}

export async function findOrderById(db: Conn, direction: Direction, id: string): Promise<OrderRow | null> {
  if (!/^\d{1,18}$/.test(id)) return null;
  const row = await db(tableOf(direction)).where({ id }).first();
  return row ? toOrderRow(direction, row) : null;
}

class ProbeRollback extends Error {}

/**
 * Which value of a check's update the database refuses on its own, or null when each is accepted
 * alone. Each value is written in a savepoint that is always rolled back: nothing is changed. Used
 * after a refused batch, to name the field and value in the order's error item.
 */
export async function findRefusedValue(
  trx: Knex.Transaction,
  direction: Direction,
  update: CheckUpdate,
): Promise<{ field: string; value: string } | null> {
  const candidates: Array<[field: string, column: string, value: string | undefined]> = [
    ['status', 'status', update.status],
    ['statusCategory', 'status_category', update.statusCategory],
    ['fee', 'fee', update.fee],
    direction === 'payment' ? ['paidAmount', 'paid_amount', update.paidAmount] : ['utr', 'utr', update.utr],
    ['providerFee', 'provider_fee', update.providerFee],
    ['providerAmount', 'provider_amount', update.providerAmount],
  ];
  if (direction === 'payment') candidates.push(['providerPaidAmount', 'provider_paid_amount', update.providerPaidAmount]);
  for (const [field, column, value] of candidates) {
    if (value === undefined) continue;
    try {
      await trx.transaction(async (sp) => {
        await sp(tableOf(direction))
          .where({ id: update.id })
          .update({ [column]: value });
        throw new ProbeRollback();
      });
    } catch (err) {
      if (err instanceof ProbeRollback) continue;
      if (isValueRefusal(err)) return { field, value };
      throw err;
    }
  }
  return null;
}
