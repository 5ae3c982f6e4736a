import type { Knex } from 'knex';
import { date, dateOrNull, int, object, rowsOf, text, textOrNull, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** One business day that has report versions: its current (newest) version and how many there are. */
export interface ReportDay {
  businessDate: string;
  versions: number;
  currentVersion: number;
  currentVersionId: string;
  createdAt: Date;
  headline: string | null;
}

/**
 * Days with reports, newest first. The headline is the current version's manifest's, where it has one.
 * `accountId`: that account's versions only (with several accounts each has its own per day).
 */
export async function listReportDays(db: Conn, limit = 120, accountId?: string): Promise<ReportDay[]> {
  const res = await db.raw(
    `SELECT DISTINCT ON (business_date) business_date::text AS business_date, id::text AS id, version, created_at,
            manifest->>'headline' AS headline, count(*) OVER (PARTITION BY business_date)::int AS versions
       FROM report_versions
      WHERE ?::text IS NULL OR account_id = ?
      ORDER BY business_date DESC, version DESC
      LIMIT ?`,
    [accountId ?? null, accountId ?? null, limit],
  );
  return rowsOf(res).map((r) => ({
    businessDate: text(r, 'business_date'),
    versions: int(r, 'versions'),
    currentVersion: int(r, 'version'),
    currentVersionId: text(r, 'id'),
    createdAt: date(r, 'created_at'),
    headline: textOrNull(r, 'headline'),
  }));
}

export interface ReportVersionFiles {
  id: string;
  businessDate: string;
  version: number;
  directory: string;
  manifest: Record<string, unknown>;
  createdAt: Date;
  emailStatus: string;
  /** Set when the retention removed its files (they are gone; archivedTo: the zip they went to). */
  removedAt: Date | null;
  archivedTo: string | null;
}

const COLUMNS = `id::text AS id, business_date::text AS business_date, version, directory, manifest, created_at, email_status, removed_at, archived_to`;
const toVersion = (r: Row): ReportVersionFiles => ({
  id: text(r, 'id'),
  businessDate: text(r, 'business_date'),
  version: int(r, 'version'),
  directory: text(r, 'directory'),
  manifest: object(r, 'manifest'),
  createdAt: date(r, 'created_at'),
  emailStatus: text(r, 'email_status'),
  removedAt: dateOrNull(r, 'removed_at'),
  archivedTo: textOrNull(r, 'archived_to'),
});

/** A version by its id: how downloads find their directory (never from a path in the request). */
export async function findReportVersionById(db: Conn, id: string): Promise<ReportVersionFiles | null> {
  const res = await db.raw(`SELECT ${COLUMNS} FROM report_versions WHERE id = ?::bigint`, [id]);
  const [row] = rowsOf(res);
  return row ? toVersion(row) : null;
}

/** Every version of a day, newest first; `accountId`: that account's (with several accounts each numbers its own). */
export async function versionsOfDay(db: Conn, businessDate: string, accountId?: string): Promise<ReportVersionFiles[]> {
  const res = await db.raw(
    `SELECT ${COLUMNS} FROM report_versions WHERE business_date = ?::date AND (?::text IS NULL OR account_id = ?) ORDER BY version DESC`,
    [businessDate, accountId ?? null, accountId ?? null],
  );
  return rowsOf(res).map(toVersion);
}
