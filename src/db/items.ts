import type { Knex } from 'knex';
import { DIRECTIONS, type Direction } from '../domain/types.ts';
import { VERDICTS, type Verdict } from '../domain/verdicts.ts';
import { decimal, decimalOrNull } from './amounts.ts';
import { date, id, oneOf, rowCountOf, rowsOf, text, textOrNull, texts, type Row } from './row.ts';
import { arrayLiteral, timestampText, unnestRows, type UnnestColumn } from './unnest.ts';
import { countCheck, type RunCounts } from '../recon/run-counts.ts';

type Conn = Knex | Knex.Transaction;

/** One order checked in one run: the local view, what the provider said, the verdict. Amounts are decimal text. */
export interface ReconItemRow {
  runId: string;
  direction: Direction;
  orderId: string;
  merchantRef: string;
  transactionRef: string;
  currency: string;
  method: string;
  checkedAt: Date;
  localStatus: string;
  localCategory: string;
  localAmount: string;
  localPaidAmount: string | null;
  localFee: string | null;
  localUtr: string | null;
  providerStatus: string | null;
  providerCategory: string | null;
  /** The currency the provider holds the order in: its amounts are in this one (a CURRENCY finding: not the order's). */
  providerCurrency: string | null;
  providerAmount: string | null;
  providerPaidAmount: string | null;
  providerFee: string | null;
  providerUtr: string | null;
  verdict: Verdict;
  /** Mismatch codes, e.g. ["AMOUNT", "FEE"]. */
  codes: string[];
  /** Free-form JSON explaining each code (jsonb). */
  details: unknown;
  reason: string;
}

export interface StoredReconItem extends ReconItemRow {
  id: string;
}

function toItem(r: Row): StoredReconItem {
  return {
    id: id(r, 'id'),
    runId: id(r, 'run_id'),
    direction: oneOf(r, 'direction', DIRECTIONS),
    orderId: id(r, 'order_id'),
    merchantRef: text(r, 'merchant_ref'),
    transactionRef: text(r, 'transaction_ref'),
    currency: text(r, 'currency'),
    method: text(r, 'method'),
    checkedAt: date(r, 'checked_at'),
    localStatus: text(r, 'local_status'),
    localCategory: text(r, 'local_category'),
    localAmount: text(r, 'local_amount'),
    localPaidAmount: textOrNull(r, 'local_paid_amount'),
    localFee: textOrNull(r, 'local_fee'),
    localUtr: textOrNull(r, 'local_utr'),
    providerStatus: textOrNull(r, 'provider_status'),
    providerCategory: textOrNull(r, 'provider_category'),
    providerCurrency: textOrNull(r, 'provider_currency'),
    providerAmount: textOrNull(r, 'provider_amount'),
    providerPaidAmount: textOrNull(r, 'provider_paid_amount'),
    providerFee: textOrNull(r, 'provider_fee'),
    providerUtr: textOrNull(r, 'provider_utr'),
    ...verdictOf(r),
    details: r.details,
    reason: text(r, 'reason'),
  };
}

/** A check's outcome: its verdict and mismatch codes. */
function verdictOf(r: Row): { verdict: Verdict; codes: string[] } {
  return { verdict: oneOf(r, 'verdict', VERDICTS), codes: texts(r, 'codes') };
}

// One statement per chunk; unnest takes 25 array parameters whatever the chunk size.
const UNNEST_CHUNK = 5000;

/**
 * recon_items' columns after run_id as unnest arrays; codes and details travel as text and are cast in the
 * SELECT. A run's batch gives its run id and account once, as scalars, with its order updates (check-writes.ts).
 */
export const ITEM_CHECK_COLUMNS: readonly UnnestColumn<Omit<ReconItemRow, 'runId'>>[] = [
  { name: 'direction', type: 'text', value: (x) => x.direction },
  { name: 'order_id', type: 'bigint', value: (x) => x.orderId },
  { name: 'merchant_ref', type: 'text', value: (x) => x.merchantRef },
  { name: 'transaction_ref', type: 'text', value: (x) => x.transactionRef },
  { name: 'currency', type: 'text', value: (x) => x.currency },
  { name: 'method', type: 'text', value: (x) => x.method },
  { name: 'checked_at', type: 'timestamptz', value: (x) => timestampText(x.checkedAt) },
  { name: 'local_status', type: 'text', value: (x) => x.localStatus },
  { name: 'local_category', type: 'text', value: (x) => x.localCategory },
  { name: 'local_amount', type: 'numeric', value: (x) => decimal(x.localAmount, 'localAmount') },
  { name: 'local_paid_amount', type: 'numeric', value: (x) => decimalOrNull(x.localPaidAmount, 'localPaidAmount') },
  { name: 'local_fee', type: 'numeric', value: (x) => decimalOrNull(x.localFee, 'localFee') },
  { name: 'local_utr', type: 'text', value: (x) => x.localUtr },
  { name: 'provider_status', type: 'text', value: (x) => x.providerStatus },
  { name: 'provider_category', type: 'text', value: (x) => x.providerCategory },
  { name: 'provider_currency', type: 'text', value: (x) => x.providerCurrency },
  { name: 'provider_amount', type: 'numeric', value: (x) => decimalOrNull(x.providerAmount, 'providerAmount') },
  { name: 'provider_paid_amount', type: 'numeric', value: (x) => decimalOrNull(x.providerPaidAmount, 'providerPaidAmount') },
  { name: 'provider_fee', type: 'numeric', value: (x) => decimalOrNull(x.providerFee, 'providerFee') },
  { name: 'provider_utr', type: 'text', value: (x) => x.providerUtr },
  { name: 'verdict', type: 'text', value: (x) => x.verdict },
  // text[] per row cannot ride in a 2-D array (ragged): each row's codes travel as an array literal.
  // A matching order (most of them) has no codes and no details: their text is a constant.
  { name: 'codes', type: 'text', value: (x) => (x.codes.length === 0 ? '{}' : arrayLiteral(x.codes, (code) => code, 'codes')) },
  { name: 'details', type: 'text', value: (x) => (isEmptyList(x.details) ? '[]' : JSON.stringify(x.details ?? [])) },
  { name: 'reason', type: 'text', value: (x) => x.reason },
];

const isEmptyList = (v: unknown): boolean => Array.isArray(v) && v.length === 0;

/** Every column, the run id per row (insertItems: rows of any runs). */
const ITEM_COLUMNS: readonly UnnestColumn<ReconItemRow>[] = [
  { name: 'run_id', type: 'bigint', value: (x) => x.runId },
  ...ITEM_CHECK_COLUMNS,
];

const namesOf = (columns: readonly UnnestColumn<never>[]) => columns.map((c) => c.name).join(', ');
/** A column of the item arrays as recon_items takes it: codes and details travel as text. */
export const itemColumnSql = (name: string, expr = name): string =>
  name === 'codes' ? `${expr}::text[]` : name === 'details' ? `${expr}::jsonb` : expr;
const selectOf = (columns: readonly UnnestColumn<never>[]) => columns.map((c) => itemColumnSql(c.name)).join(', ');
const ITEMS_SQL = (from: string) =>
  `INSERT INTO recon_items (${namesOf(ITEM_COLUMNS)}) SELECT ${selectOf(ITEM_COLUMNS)} FROM ${from} ON CONFLICT (run_id, direction, order_id) DO NOTHING`;

/**
 * Bulk insert; an item already written for (run, direction, order), e.g. by a run that died after
 * writing a batch but before its checkpoint, is skipped. Returns how many rows were inserted.
 * INSERT ... SELECT FROM unnest(one array per column), see unnest.ts.
 */
export async function insertItems(trx: Conn, items: readonly ReconItemRow[]): Promise<number> {
  let inserted = 0;
  for (let i = 0; i < items.length; i += UNNEST_CHUNK) {
    const v = unnestRows(items.slice(i, i + UNNEST_CHUNK), ITEM_COLUMNS);
    inserted += rowCountOf(await trx.raw(ITEMS_SQL(v.sql), v.bindings));
  }
  return inserted;
}

/** A run's items in write order. */
export async function selectItemsByRun(db: Conn, runId: string): Promise<StoredReconItem[]> {
  const rows = await db('recon_items').where({ run_id: runId }).orderBy('id');
  return rows.map(toItem);
}

/** Each order's latest verdict and codes checked in [from, to), counted: what the day's report shows. */
export async function latestVerdictCounts(db: Conn, from: Date, to: Date): Promise<Record<string, number>> {
  const res = await db.raw(
    `SELECT verdict, codes FROM (
       SELECT DISTINCT ON (direction, order_id) verdict, codes FROM recon_items
       WHERE checked_at >= ? AND checked_at < ?
       ORDER BY direction, order_id, checked_at DESC, id DESC) latest`,
    [from, to],
  );
  const counts: RunCounts = {};
  for (const { verdict, codes } of rowsOf(res).map(verdictOf)) countCheck(counts, verdict, codes);
  return counts;
}

/** Every check of one order, oldest first: the case's evidence. */
export async function selectItemsOfOrder(db: Conn, direction: Direction, orderId: string): Promise<StoredReconItem[]> {
  const rows = await db('recon_items')
    .where({ direction, order_id: orderId })
    .orderBy([{ column: 'checked_at' }, { column: 'id' }]);
  return rows.map(toItem);
}
