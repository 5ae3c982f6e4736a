import type { Knex } from 'knex';
import { settlementSums, type SettlementSums } from './settlement.ts';
import { advisoryKey } from './advisory.ts';

/**
 * Report queries and the report_versions repository. Every value a report prints is
 * selected as text (amounts, ids) or epoch milliseconds, so the output never depends on
 * the driver's type parsers and no amount becomes a JS number.
 */

/** One order's latest check of the day, as items.csv prints it. */
export interface ReportItemRow {
  run_id: string;
  checked_at_ms: string;
  direction: string;
  order_id: string;
  merchant_ref: string;
  transaction_ref: string;
  currency: string;
  method: string;
  local_status: string;
  provider_status: string | null;
  provider_category: string | null;
  local_amount: string;
  provider_amount: string | null;
  local_paid_amount: string | null;
  provider_paid_amount: string | null;
  local_fee: string | null;
  provider_fee: string | null;
  utr: string | null;
  verdict: string;
  mismatch_codes: string;
  reason: string;
}

export interface BalanceSnapshotRow {
  run_id: string | null;
  currency: string;
  taken_at_ms: string;
  available: string;
  pending: string;
  held: string;
  credit: string;
}

export interface RateSnapshotRow {
  run_id: string | null;
  currency: string;
  taken_at_ms: string;
  deposit: string;
  withdraw: string;
  flags: string;
}

/** A UTC window [from, to) as ISO instants. */
export interface Window {
  from: string;
  to: string;
}

const EPOCH_MS = (col: string) => `floor(extract(epoch from ${col}) * 1000)::bigint::text`;

/**
 * The latest check per order (DISTINCT ON direction, order_id; newest checked_at, then id)
 * among the window's checks, in report order: direction, merchant_ref (byte order, whatever
 * the database's locale), order id.
 */
const ITEMS_SQL = `SELECT * FROM (
    SELECT DISTINCT ON (i.direction, i.order_id)
      i.run_id::text AS run_id, ${EPOCH_MS('i.checked_at')} AS checked_at_ms,
      i.direction, i.order_id::text AS order_id, i.order_id AS order_key,
      i.merchant_ref, i.transaction_ref, i.currency, i.method,
      i.local_status, i.provider_status, i.provider_category,
      i.local_amount::text AS local_amount, i.provider_amount::text AS provider_amount,
      i.local_paid_amount::text AS local_paid_amount, i.provider_paid_amount::text AS provider_paid_amount,
      i.local_fee::text AS local_fee, i.provider_fee::text AS provider_fee,
      coalesce(i.provider_utr, i.local_utr) AS utr,
      i.verdict, array_to_string(i.codes, ' ') AS mismatch_codes, i.reason
    FROM recon_items i
    WHERE i.checked_at >= ?::timestamptz AND i.checked_at < ?::timestamptz
    ORDER BY i.direction, i.order_id, i.checked_at DESC, i.id DESC
  ) latest
  ORDER BY direction, merchant_ref COLLATE "C", order_key`;

const CURSOR = 'payrecon_report_items';

/**
 * Streams the day's items in pages through a server-side cursor: one sort in Postgres,
 * `pageSize` rows in memory at a time, and it works the same on PGlite. `tx` must be a
 * transaction (a cursor lives inside one).
 */
export async function* streamReportItems(tx: Knex.Transaction, window: Window, pageSize = 1000): AsyncGenerator<ReportItemRow[]> {
  // Every row will be fetched: plan for total time, not for the first 10 % (the cursor default).
  await tx.raw('SET LOCAL cursor_tuple_fraction = 1.0');
  await tx.raw(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${ITEMS_SQL}`, [window.from, window.to]);
  // Rows also carry order_key (the bigint sort key); callers read only ReportItemRow's fields.
  // .then() once: a knex builder runs its query again on every .then, a Promise does not.
  const fetchPage = (): Promise<{ rows: ReportItemRow[] }> =>
    tx.raw(`FETCH ${pageSize} FROM ${CURSOR}`).then((r: { rows: ReportItemRow[] }) => r);
  let next: Promise<{ rows: ReportItemRow[] }> | null = fetchPage();
  try {
    while (next) {
      const res: { rows: ReportItemRow[] } = await next;
      // The next page is fetched while the caller formats this one: Postgres and Node overlap.
      next = res.rows.length < pageSize ? null : fetchPage();
      next?.catch(() => undefined); // awaited on the next turn; a caller that stops early must not leave it unhandled
      if (res.rows.length > 0) yield res.rows;
    }
  } finally {
    if (next) await next.catch(() => undefined);
    await tx.raw(`CLOSE ${CURSOR}`).catch(() => undefined);
  }
}

export async function balanceSnapshotsFor(db: Knex, window: Window): Promise<BalanceSnapshotRow[]> {
  const res = (await db.raw(
    `SELECT run_id::text AS run_id, currency, ${EPOCH_MS('taken_at')} AS taken_at_ms,
            available::text AS available, pending::text AS pending, held::text AS held, credit::text AS credit
       FROM balance_snapshots
      WHERE taken_at >= ?::timestamptz AND taken_at < ?::timestamptz
      ORDER BY currency COLLATE "C", taken_at, id`,
    [window.from, window.to],
  )) as { rows: BalanceSnapshotRow[] };
  return res.rows;
}

export async function rateSnapshotsFor(db: Knex, window: Window): Promise<RateSnapshotRow[]> {
  const res = (await db.raw(
    `SELECT run_id::text AS run_id, currency, ${EPOCH_MS('taken_at')} AS taken_at_ms,
            deposit::text AS deposit, withdraw::text AS withdraw, array_to_string(flags, ' ') AS flags
       FROM rate_snapshots
      WHERE taken_at >= ?::timestamptz AND taken_at < ?::timestamptz
      ORDER BY currency COLLATE "C", taken_at, id`,
    [window.from, window.to],
  )) as { rows: RateSnapshotRow[] };
  return res.rows;
}

/** What the merchant's own orders say moved a currency's balance (the snapshot job's sums). */
export type FinalizedMovement = SettlementSums;

/**
 * Orders finalized in (first snapshot, last snapshot] of the window for the currency, the
 * bounds read as text so microseconds are not lost: the same sums as the snapshot job's check.
 */
export async function finalizedMovement(db: Knex, currency: string, window: Window): Promise<FinalizedMovement> {
  const res = (await db.raw(
    `SELECT min(taken_at)::text AS opened, max(taken_at)::text AS closed FROM balance_snapshots
      WHERE currency = ? AND taken_at >= ?::timestamptz AND taken_at < ?::timestamptz`,
    [currency, window.from, window.to],
  )) as { rows: Array<{ opened: string | null; closed: string | null }> };
  const { opened, closed } = res.rows[0];
  if (opened === null || closed === null)
    return { payments: { paidAmount: null, fee: null, count: 0 }, payouts: { amount: null, fee: null, count: 0 } };
  return settlementSums(db, currency, opened, closed);
}

/** Serialises report writers for one business date, across processes; released with the transaction. */
export async function lockReportDate(tx: Knex.Transaction, businessDate: string): Promise<void> {
  await tx.raw('SELECT pg_advisory_xact_lock(?::bigint)', [advisoryKey(`report:${businessDate}`)]);
}

export interface ReportVersionRecord {
  id: string;
  business_date: string;
  version: number;
  directory: string;
  manifest: unknown;
  content_hash: string;
  created_at: Date;
  email_status: 'none' | 'pending' | 'sent';
}

const VERSION_COLUMNS = `id::text AS id, business_date::text AS business_date, version, directory, manifest,
  content_hash, created_at, email_status`;

export interface NewReportVersion {
  businessDate: string;
  version: number;
  directory: string;
  manifest: unknown;
  contentHash: string;
  createdAt: Date;
}

export async function insertReportVersion(db: Knex, v: NewReportVersion): Promise<ReportVersionRecord> {
  const res = (await db.raw(
    `INSERT INTO report_versions (business_date, version, directory, manifest, content_hash, created_at)
     VALUES (?::date, ?, ?, ?::jsonb, ?, ?) RETURNING ${VERSION_COLUMNS}`,
    [v.businessDate, v.version, v.directory, JSON.stringify(v.manifest), v.contentHash, v.createdAt],
  )) as { rows: ReportVersionRecord[] };
  return res.rows[0];
}

/** The newest recorded version of a date, or null. */
export async function latestReportVersion(db: Knex, businessDate: string): Promise<ReportVersionRecord | null> {
  const res = (await db.raw(`SELECT ${VERSION_COLUMNS} FROM report_versions WHERE business_date = ?::date ORDER BY version DESC LIMIT 1`, [
    businessDate,
  ])) as { rows: ReportVersionRecord[] };
  return res.rows[0] ?? null;
}

export async function listReportVersions(db: Knex, businessDate: string): Promise<ReportVersionRecord[]> {
  const res = (await db.raw(`SELECT ${VERSION_COLUMNS} FROM report_versions WHERE business_date = ?::date ORDER BY version`, [
    businessDate,
  ])) as { rows: ReportVersionRecord[] };
  return res.rows;
}
