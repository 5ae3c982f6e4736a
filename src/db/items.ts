import type { Knex } from 'knex';
import type { Direction } from '../provider/types.ts';
import { decimal, decimalOrNull } from './amounts.ts';

type Conn = Knex | Knex.Transaction;

export type Verdict = 'matched' | 'resolved' | 'pending' | 'mismatch' | 'error';

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

function toItem(r: Record<string, unknown>): StoredReconItem {
  return {
    id: String(r.id),
    runId: String(r.run_id),
    direction: r.direction as Direction,
    orderId: String(r.order_id),
    merchantRef: r.merchant_ref as string,
    transactionRef: r.transaction_ref as string,
    currency: r.currency as string,
    method: r.method as string,
    checkedAt: r.checked_at as Date,
    localStatus: r.local_status as string,
    localCategory: r.local_category as string,
    localAmount: r.local_amount as string,
    localPaidAmount: r.local_paid_amount as string | null,
    localFee: r.local_fee as string | null,
    localUtr: r.local_utr as string | null,
    providerStatus: r.provider_status as string | null,
    providerCategory: r.provider_category as string | null,
    providerAmount: r.provider_amount as string | null,
    providerPaidAmount: r.provider_paid_amount as string | null,
    providerFee: r.provider_fee as string | null,
    providerUtr: r.provider_utr as string | null,
    verdict: r.verdict as Verdict,
    codes: r.codes as string[],
    details: r.details,
    reason: r.reason as string,
  };
}

/** A text[] value as a Postgres array literal, every element quoted (exact for any string). */
function textArrayLiteral(values: readonly string[]): string {
  if (values.length === 0) return '{}'; // most items: no codes, no regex
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

// One statement per chunk; unnest takes 24 array parameters whatever the chunk size.
const UNNEST_CHUNK = 5000;

/**
 * Bulk insert; an item already written for (run, direction, order), e.g. by a run that died after
 * writing a batch but before its checkpoint, is skipped. Returns how many rows were inserted.
 * INSERT ... SELECT FROM unnest(one array per column): a multi-row VALUES of 500 rows is 12,500
 * bind parameters that knex builds and Postgres parses and plans per batch, which cost the job
 * more CPU than the comparison itself.
 */
export async function insertItems(trx: Conn, items: readonly ReconItemRow[]): Promise<number> {
  let inserted = 0;
  for (let i = 0; i < items.length; i += UNNEST_CHUNK) {
    const chunk = items.slice(i, i + UNNEST_CHUNK);
    const col = <T>(f: (item: ReconItemRow) => T): T[] => chunk.map(f);
    const res = await trx.raw(
      `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
         local_status, local_category, local_amount, local_paid_amount, local_fee, local_utr,
         provider_status, provider_category, provider_amount, provider_paid_amount, provider_fee, provider_utr,
         verdict, codes, details, reason)
       SELECT run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
         local_status, local_category, local_amount, local_paid_amount, local_fee, local_utr,
         provider_status, provider_category, provider_amount, provider_paid_amount, provider_fee, provider_utr,
         verdict, codes::text[], details::jsonb, reason
       FROM unnest(?::bigint[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[],
         ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[], ?::text[],
         ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[], ?::text[],
         ?::text[], ?::text[], ?::text[], ?::text[])
         AS v(run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
           local_status, local_category, local_amount, local_paid_amount, local_fee, local_utr,
           provider_status, provider_category, provider_amount, provider_paid_amount, provider_fee, provider_utr,
           verdict, codes, details, reason)
       ON CONFLICT (run_id, direction, order_id) DO NOTHING`,
      [
        col((x) => x.runId),
        col((x) => x.direction),
        col((x) => x.orderId),
        col((x) => x.merchantRef),
        col((x) => x.transactionRef),
        col((x) => x.currency),
        col((x) => x.method),
        col((x) => x.checkedAt.toISOString()),
        col((x) => x.localStatus),
        col((x) => x.localCategory),
        col((x) => decimal(x.localAmount, 'localAmount')),
        col((x) => decimalOrNull(x.localPaidAmount, 'localPaidAmount')),
        col((x) => decimalOrNull(x.localFee, 'localFee')),
        col((x) => x.localUtr),
        col((x) => x.providerStatus),
        col((x) => x.providerCategory),
        col((x) => decimalOrNull(x.providerAmount, 'providerAmount')),
        col((x) => decimalOrNull(x.providerPaidAmount, 'providerPaidAmount')),
        col((x) => decimalOrNull(x.providerFee, 'providerFee')),
        col((x) => x.providerUtr),
        col((x) => x.verdict),
        // text[] per row cannot ride in a 2-D array (ragged): each row's codes travel as an array literal.
        col((x) => textArrayLiteral(x.codes)),
        col((x) => JSON.stringify(x.details ?? [])),
        col((x) => x.reason),
      ] as unknown as Knex.RawBinding[],
    );
    inserted += (res as { rowCount: number }).rowCount ?? 0;
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
  const counts: Record<string, number> = {};
  for (const r of res.rows as Array<{ verdict: string; codes: string[] }>) {
    counts[`verdict:${r.verdict}`] = (counts[`verdict:${r.verdict}`] ?? 0) + 1;
    for (const c of r.codes) counts[`code:${c}`] = (counts[`code:${c}`] ?? 0) + 1;
  }
  return counts;
}

/** Every check of one order, oldest first: the case's evidence. */
export async function selectItemsOfOrder(db: Conn, direction: Direction, orderId: string): Promise<StoredReconItem[]> {
  const rows = await db('recon_items')
    .where({ direction, order_id: orderId })
    .orderBy([{ column: 'checked_at' }, { column: 'id' }]);
  return rows.map(toItem);
}
