import type { Knex } from 'knex';
import { advisoryKey } from './advisory.ts';
import type { Db } from './connect.ts';
import { bool, date, id, int, oneOf, oneRow, rowsOf, text, textOrNull, type Row } from './row.ts';
import {
  accountParam,
  streamRows,
  windowParams,
  type LateChangeRow,
  type OpenItemRow,
  type OrderCasesColumns,
  type ReportOrderRow,
  type Window,
} from './report-orders.ts';

/**
 * Report queries and the report_versions repository. Every value a report prints is
 * selected as text (amounts, ids) or epoch milliseconds, so the output never depends on
 * the driver's type parsers and no amount becomes a JS number.
 */

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

const EPOCH_MS = (col: string) => `floor(extract(epoch from ${col}) * 1000)::bigint::text`;

/** One account's rows (several accounts configured); null, with one account: every row. */
const OF_ACCOUNT = '(?::text IS NULL OR account_id = ?::text)';
const ofAccount = (account: string | undefined): [string | null, string | null] => [account ?? null, account ?? null];

/** One order of the day with its latest check and its cases, as items.csv prints it. */
export type ReportItemRow = ReportOrderRow & Partial<OrderCasesColumns>;
export type { Window, OpenItemRow, LateChangeRow };

/** The day's orders (of `account` only, when given), each with its latest check whenever it ran, in report order. */
export function streamReportItems(
  tx: Knex.Transaction,
  window: Window,
  pageSize?: number,
  account?: string,
): AsyncGenerator<ReportItemRow[]> {
  return streamRows<ReportItemRow>(tx, 'payrecon_report_items', { ...windowParams(window), ...accountParam(account) }, pageSize);
}

/** Orders created in `earlier` (the lookback days before the report's day) still open at report time. */
export function streamOpenItems(
  tx: Knex.Transaction,
  earlier: Window,
  zone: string,
  pageSize?: number,
  account?: string,
): AsyncGenerator<OpenItemRow[]> {
  return streamRows<OpenItemRow>(tx, 'payrecon_open_items', { zone, ...windowParams(earlier), ...accountParam(account) }, pageSize);
}

/**
 * Orders of the business days [firstDay, dayAfterLast) (dates) created in `earlier`, whose verdict
 * or codes changed since the latest recorded version of their own day's report.
 */
export function streamLateChanges(
  tx: Knex.Transaction,
  days: { first: string; end: string },
  earlier: Window,
  zone: string,
  pageSize?: number,
  account?: string,
): AsyncGenerator<LateChangeRow[]> {
  return streamRows<LateChangeRow>(
    tx,
    'payrecon_late_changes',
    { first_day: days.first, end_day: days.end, zone, ...windowParams(earlier), ...accountParam(account) },
    pageSize,
  );
}

function toBalanceSnapshot(r: Row): BalanceSnapshotRow {
  return {
    run_id: textOrNull(r, 'run_id'),
    currency: text(r, 'currency'),
    taken_at_ms: text(r, 'taken_at_ms'),
    available: text(r, 'available'),
    pending: text(r, 'pending'),
    held: text(r, 'held'),
    credit: text(r, 'credit'),
  };
}

function toRateSnapshot(r: Row): RateSnapshotRow {
  return {
    run_id: textOrNull(r, 'run_id'),
    currency: text(r, 'currency'),
    taken_at_ms: text(r, 'taken_at_ms'),
    deposit: text(r, 'deposit'),
    withdraw: text(r, 'withdraw'),
    flags: text(r, 'flags'),
  };
}

export async function balanceSnapshotsFor(db: Knex, window: Window, account?: string): Promise<BalanceSnapshotRow[]> {
  const res = await db.raw(
    `SELECT run_id::text AS run_id, currency, ${EPOCH_MS('taken_at')} AS taken_at_ms,
            available::text AS available, pending::text AS pending, held::text AS held, credit::text AS credit
       FROM balance_snapshots
      WHERE taken_at >= ?::timestamptz AND taken_at < ?::timestamptz AND ${OF_ACCOUNT}
      ORDER BY currency COLLATE "C", taken_at, id`,
    [window.from, window.to, ...ofAccount(account)],
  );
  return rowsOf(res).map(toBalanceSnapshot);
}

export async function rateSnapshotsFor(db: Knex, window: Window, account?: string): Promise<RateSnapshotRow[]> {
  const res = await db.raw(
    `SELECT run_id::text AS run_id, currency, ${EPOCH_MS('taken_at')} AS taken_at_ms,
            deposit::text AS deposit, withdraw::text AS withdraw, array_to_string(flags, ' ') AS flags
       FROM rate_snapshots
      WHERE taken_at >= ?::timestamptz AND taken_at < ?::timestamptz AND ${OF_ACCOUNT}
      ORDER BY currency COLLATE "C", taken_at, id`,
    [window.from, window.to, ...ofAccount(account)],
  );
  return rowsOf(res).map(toRateSnapshot);
}

/**
 * The name of a business date's report lock (of one account's reports, with several accounts: each
 * numbers its own versions). Both ways of taking it below come to the same advisory key, so they exclude each other.
 */
const reportDateLock = (businessDate: string, account?: string): string =>
  account === undefined ? `report:${businessDate}` : `report:${account}:${businessDate}`;

/** Serialises report writers for one business date (of one account), across processes; released with the transaction. */
export async function lockReportDate(tx: Knex.Transaction, businessDate: string, account?: string): Promise<void> {
  await tx.raw('SELECT pg_advisory_xact_lock(?::bigint)', [advisoryKey(reportDateLock(businessDate, account))]);
}

/**
 * Runs fn holding the date's report lock, taken by the engine on its own connection BEFORE fn
 * opens its REPEATABLE READ transaction: a snapshot is fixed by a transaction's first statement,
 * so a lock taken inside it would come with a snapshot from before the wait, blind to the version
 * the previous holder just committed (a concurrent `--email` run then saw "unchanged" with no
 * version row to send). On Postgres it is a session advisory lock on the same key as lockReportDate's
 * (a writer in a caller's transaction), which it waits for; on PGlite (one process) it is kept in the process.
 */
export function withReportDateLock<T>(db: Db, businessDate: string, fn: () => Promise<T>, account?: string): Promise<T> {
  return db.engine.waitLock(reportDateLock(businessDate, account), fn);
}

export interface ReportVersionRecord {
  id: string;
  business_date: string;
  version: number;
  directory: string;
  manifest: unknown;
  content_hash: string;
  created_at: Date;
  email_status: (typeof EMAIL_STATUSES)[number];
  business_hash: string | null;
  partial: boolean;
}

const EMAIL_STATUSES = ['none', 'pending', 'sent'] as const;

function toVersionRecord(r: Row): ReportVersionRecord {
  return {
    id: id(r, 'id'),
    business_date: text(r, 'business_date'),
    version: int(r, 'version'),
    directory: text(r, 'directory'),
    manifest: r.manifest,
    content_hash: text(r, 'content_hash'),
    created_at: date(r, 'created_at'),
    email_status: oneOf(r, 'email_status', EMAIL_STATUSES),
    business_hash: textOrNull(r, 'business_hash'),
    partial: bool(r, 'partial'),
  };
}

const VERSION_COLUMNS = `id::text AS id, business_date::text AS business_date, version, directory, manifest,
  content_hash, created_at, email_status, business_hash, partial`;

export interface NewReportVersion {
  businessDate: string;
  version: number;
  directory: string;
  manifest: unknown;
  contentHash: string;
  businessHash: string;
  partial: boolean;
  createdAt: Date;
  /** The account whose version this is; left out: the column's default ('default', the single account). */
  accountId?: string;
}

export async function insertReportVersion(db: Knex, v: NewReportVersion): Promise<ReportVersionRecord> {
  const res = await db.raw(
    `INSERT INTO report_versions (business_date, version, directory, manifest, content_hash, business_hash, partial, created_at, account_id)
     VALUES (?::date, ?, ?, ?::jsonb, ?, ?, ?, ?, coalesce(?::text, 'default')) RETURNING ${VERSION_COLUMNS}`,
    [
      v.businessDate,
      v.version,
      v.directory,
      JSON.stringify(v.manifest),
      v.contentHash,
      v.businessHash,
      v.partial,
      v.createdAt,
      v.accountId ?? null,
    ],
  );
  return toVersionRecord(oneRow(res));
}

/** A day's versions, oldest first; `account`: that account's only (several accounts number theirs apart). */
export async function listReportVersions(db: Knex, businessDate: string, account?: string): Promise<ReportVersionRecord[]> {
  const res = await db.raw(
    `SELECT ${VERSION_COLUMNS} FROM report_versions WHERE business_date = ?::date AND ${OF_ACCOUNT} ORDER BY version`,
    [businessDate, ...ofAccount(account)],
  );
  return rowsOf(res).map(toVersionRecord);
}
