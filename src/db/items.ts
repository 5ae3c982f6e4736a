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

// 25 columns: 1000 rows is 25000 bind parameters, under Postgres' 65535.
const INSERT_CHUNK = 1000;

function toColumns(i: ReconItemRow): Record<string, unknown> {
  return {
    run_id: i.runId,
    direction: i.direction,
    order_id: i.orderId,
    merchant_ref: i.merchantRef,
    transaction_ref: i.transactionRef,
    currency: i.currency,
    method: i.method,
    checked_at: i.checkedAt,
    local_status: i.localStatus,
    local_category: i.localCategory,
    local_amount: decimal(i.localAmount, 'localAmount'),
    local_paid_amount: decimalOrNull(i.localPaidAmount, 'localPaidAmount'),
    local_fee: decimalOrNull(i.localFee, 'localFee'),
    local_utr: i.localUtr,
    provider_status: i.providerStatus,
    provider_category: i.providerCategory,
    provider_amount: decimalOrNull(i.providerAmount, 'providerAmount'),
    provider_paid_amount: decimalOrNull(i.providerPaidAmount, 'providerPaidAmount'),
    provider_fee: decimalOrNull(i.providerFee, 'providerFee'),
    provider_utr: i.providerUtr,
    verdict: i.verdict,
    codes: i.codes,
    // Text, not an object: pg would send a JS array as a Postgres array literal.
    details: JSON.stringify(i.details ?? []),
    reason: i.reason,
  };
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

/**
 * Bulk insert; an item already written for (run, direction, order), e.g. by a run that died after
 * writing a batch but before its checkpoint, is skipped. Returns how many rows were inserted.
 */
export async function insertItems(trx: Conn, items: readonly ReconItemRow[]): Promise<number> {
  let inserted = 0;
  for (let i = 0; i < items.length; i += INSERT_CHUNK) {
    const rows = await trx('recon_items')
      .insert(items.slice(i, i + INSERT_CHUNK).map(toColumns))
      .onConflict(['run_id', 'direction', 'order_id'])
      .ignore()
      .returning('id');
    inserted += rows.length;
  }
  return inserted;
}

/** A run's items in write order. */
export async function selectItemsByRun(db: Conn, runId: string): Promise<StoredReconItem[]> {
  const rows = await db('recon_items').where({ run_id: runId }).orderBy('id');
  return rows.map(toItem);
}

/** A run's orders in mismatch (stale included), for its alerts: small next to the run, ordered for stable samples. */
export async function selectMismatchedItems(
  db: Conn,
  runId: string,
): Promise<Array<{ merchantRef: string; transactionRef: string; verdict: Verdict; codes: string[]; reason: string }>> {
  const rows = await db('recon_items')
    .where({ run_id: runId, verdict: 'mismatch' })
    .select('merchant_ref', 'transaction_ref', 'verdict', 'codes', 'reason')
    .orderBy('id');
  return rows.map((r: Record<string, unknown>) => ({
    merchantRef: r.merchant_ref as string,
    transactionRef: r.transaction_ref as string,
    verdict: r.verdict as Verdict,
    codes: r.codes as string[],
    reason: r.reason as string,
  }));
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
