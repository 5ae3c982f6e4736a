import type { Knex } from 'knex';
import { dateOrNull, int, intOrNull, oneOf, rowsOf, text, textOrNull, type Row } from './row.ts';

/**
 * E-mail delivery bookkeeping on report_versions. A send is: beginEmailAttempt (committed
 * before the SMTP conversation, so a crash leaves the version `pending`), then markEmailSent
 * or markEmailFailed.
 */

const EMAIL_STATUSES = ['none', 'pending', 'sent'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export interface ReportDelivery {
  id: string;
  business_date: string;
  version: number;
  directory: string;
  manifest: unknown;
  email_status: EmailStatus;
  email_attempts: number;
  email_error: string | null;
  emailed_at: Date | null;
  /** Set when the retention removed the version's files: nothing to send. */
  removed_at: Date | null;
  archived_to: string | null;
  /** The account whose version this is ('default' with one account). */
  account_id: string;
}

const toDelivery = (r: Row): ReportDelivery => ({
  id: text(r, 'id'),
  business_date: text(r, 'business_date'),
  version: int(r, 'version'),
  directory: text(r, 'directory'),
  manifest: r.manifest,
  email_status: oneOf(r, 'email_status', EMAIL_STATUSES),
  email_attempts: int(r, 'email_attempts'),
  email_error: textOrNull(r, 'email_error'),
  emailed_at: dateOrNull(r, 'emailed_at'),
  removed_at: dateOrNull(r, 'removed_at'),
  archived_to: textOrNull(r, 'archived_to'),
  account_id: text(r, 'account_id'),
});

const COLUMNS = `id::text AS id, business_date::text AS business_date, version, directory, manifest,
  email_status, email_attempts, email_error, emailed_at, removed_at, archived_to, account_id`;

export async function reportDeliveryById(db: Knex, id: string): Promise<ReportDelivery | null> {
  const res = await db.raw(`SELECT ${COLUMNS} FROM report_versions WHERE id = ?::bigint`, [id]);
  return rowsOf(res).map(toDelivery)[0] ?? null;
}

/** Versions are numbered per account: the date and number name a version only together with its account. */
export async function reportDeliveryByVersion(
  db: Knex,
  account: string,
  businessDate: string,
  version: number,
): Promise<ReportDelivery | null> {
  const res = await db.raw(`SELECT ${COLUMNS} FROM report_versions WHERE account_id = ? AND business_date = ?::date AND version = ?`, [
    account,
    businessDate,
    version,
  ]);
  return rowsOf(res).map(toDelivery)[0] ?? null;
}

/**
 * Marks the version pending and counts the attempt; returns the row as it now is, or null when the
 * retention removed its files (a pending version is never removed: the two updates exclude each other).
 */
export async function beginEmailAttempt(db: Knex, id: string): Promise<ReportDelivery | null> {
  const res = await db.raw(
    `UPDATE report_versions SET email_status = 'pending', email_attempts = email_attempts + 1
      WHERE id = ?::bigint AND removed_at IS NULL RETURNING ${COLUMNS}`,
    [id],
  );
  const [row] = rowsOf(res);
  if (row) return toDelivery(row);
  if (!(await reportDeliveryById(db, id))) throw new Error(`report version ${id} does not exist`);
  return null;
}

export async function markEmailSent(db: Knex, id: string, at: Date): Promise<void> {
  await db.raw(`UPDATE report_versions SET email_status = 'sent', emailed_at = ?, email_error = NULL WHERE id = ?::bigint`, [at, id]);
}

/** Leaves the version pending for retryPendingEmails; `error` must already be scrubbed. */
export async function markEmailFailed(db: Knex, id: string, error: string): Promise<void> {
  await db.raw(`UPDATE report_versions SET email_status = 'pending', email_error = ? WHERE id = ?::bigint`, [error, id]);
}

/** Versions whose e-mail was asked for and not yet accepted by the server, oldest first; `account`: that account's only. */
export async function pendingReportDeliveries(db: Knex, account?: string): Promise<ReportDelivery[]> {
  const res = await db.raw(
    `SELECT ${COLUMNS} FROM report_versions WHERE email_status = 'pending' AND (?::text IS NULL OR account_id = ?::text)
      ORDER BY business_date, version, account_id`,
    [account ?? null, account ?? null],
  );
  return rowsOf(res).map(toDelivery);
}

/**
 * The newest version of a business day, up to `version`, that was e-mailed at some point
 * (emailed_at set): `version` itself when it is being sent again, null before the day's first e-mail.
 */
export async function lastEmailedVersion(db: Knex, businessDate: string, version: number, account?: string): Promise<number | null> {
  const res = await db.raw(
    `SELECT max(version) AS version FROM report_versions
      WHERE business_date = ?::date AND version <= ? AND emailed_at IS NOT NULL AND (?::text IS NULL OR account_id = ?::text)`,
    [businessDate, version, account ?? null, account ?? null],
  );
  const [row] = rowsOf(res);
  return row ? intOrNull(row, 'version') : null;
}
