import { createHash } from 'node:crypto';
import type { CsvFileResult } from './csv-file.ts';
import { REPORT_TABLES, type ReportTableName } from './report-tables.ts';

/** The CSV files of a version, in the order the manifest and the content hash list them: one per table of the registry. */
export type ReportFile = `${ReportTableName}.csv`;
export const REPORT_FILES: readonly ReportFile[] = REPORT_TABLES.map((t) => `${t.name}.csv` as const);

/** journal_xero.csv continued past Xero's 300 lines: as many as the day needs, so not in REPORT_FILES. */
export type XeroPartFile = `journal_xero_${number}.csv`;
const XERO_PART = /^journal_xero_(\d+)\.csv$/;

/** A version's CSV files: the fixed list, then the Xero parts it has (journal_xero_2.csv, …). */
export type CsvFiles = Record<ReportFile, CsvFileResult> & Partial<Record<XeroPartFile, CsvFileResult>>;

/** The Xero parts among a version's files, in number order. */
export function xeroParts(files: object): XeroPartFile[] {
  return Object.keys(files)
    .filter((n): n is XeroPartFile => XERO_PART.test(n))
    .sort((a, b) => Number(XERO_PART.exec(a)![1]) - Number(XERO_PART.exec(b)![1]));
}

/** Every CSV file of a version in manifest order, the Xero parts after journal_xero.csv. */
export function csvFileNames(files: object): string[] {
  const parts = xeroParts(files);
  return REPORT_FILES.flatMap((n) => (n === 'journal_xero.csv' ? [n, ...parts] : [n]));
}

/**
 * Files rendered from data the other files hold (the roll-forward, late changes, fees, rates) and
 * from settings (the chart of accounts): left out of the business hash, so a version changes when
 * its data does, not when only the rendering would.
 */
const JOURNAL_FILE = /^((summary_)?journal(_xero(_\d+)?|_quickbooks|_posting)?|trial_balance)\.csv$/;

/**
 * Files made from the CSVs' data for people (the workbook, report.html, the charts e-mailed inline):
 * hashed in the manifest like the CSVs, left out of the content and business hashes (they follow
 * from the same data, and name the version).
 */
export const EXTRA_FILES = [
  'reconciliation.xlsx',
  'report.html',
  'chart-mismatches-by-code.png',
  'chart-roll-forward.png',
  'chart-open-items-aging.png',
] as const;
export type ExtraFileName = (typeof EXTRA_FILES)[number];

export interface ExtraFileResult {
  /** Data rows (the workbook's, over all sheets); null for a page or a picture. */
  readonly rows: number | null;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * manifest.json of one version. It is written once, with the version, and never rewritten:
 * which version is current lives in the date directory's CURRENT file and in report_versions
 * (a later version supersedes this one without touching it, since it may have been e-mailed).
 * `supersedes` names the version that was current when this one was written.
 */
export interface ReportManifest {
  format: 'payrecon-report/2';
  /** The account the version is of; present only when several accounts are configured. */
  account?: { id: string; name: string };
  business_date: string;
  timezone: string;
  /** The business day as local instants: [from, to). */
  window: { from: string; to: string };
  /** True when written before the day was over (today in the zone): every figure may still move. */
  partial: boolean;
  /** The summary's headline, as the e-mail subject says it. */
  headline: string;
  /** Earlier business days whose open items and late changes this version carries (RECON_LOOKBACK_DAYS). */
  lookback_days: number;
  version: number;
  supersedes: number | null;
  created_at: string;
  /** SHA-256 over the CSV files' names and hashes: equal hashes mean byte-identical reports. */
  content_hash: string;
  /**
   * SHA-256 over the files' business hashes and `partial`: what decides whether a rerun writes a
   * new version. Run ids, check times and reasons' wording are left out, so a rerun that finds
   * the same verdicts, codes, amounts, statuses, open items, late changes and balances writes none.
   */
  business_hash: string;
  /** job_runs whose checks or snapshots appear in the files (the runs behind this version), ascending. */
  run_ids: string[];
  /** Every file of the version: the CSVs, then the extras (absent from versions written before them). */
  files: CsvFiles & Partial<Record<ExtraFileName, ExtraFileResult>>;
}

/** The files accountants open, listed before the CSVs wherever a version's files are printed. */
const OPENED_FIRST = ['reconciliation.xlsx', 'report.html'] as const;

/**
 * A version's files as `payrecon report` and the demo list them: the workbook and report.html
 * first (those a version written before them lacks are left out), then the CSVs in manifest
 * order; each with what to say about it ("3,151 rows over all sheets", "13 rows", "" for the page).
 */
export function listedFiles(files: ReportManifest['files']): Array<{ name: string; note: string }> {
  const rows = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;
  const first = OPENED_FIRST.flatMap((name) => {
    const f = files[name];
    if (f === undefined) return [];
    return [{ name, note: f.rows === null ? '' : `${rows(f.rows)} over all sheets` }];
  });
  // A version written before the journal lacks its files: listed as it was written.
  const csv = csvFileNames(files).flatMap((name) => {
    const f = (files as Record<string, CsvFileResult | undefined>)[name];
    return f === undefined ? [] : [{ name, note: rows(f.rows) }];
  });
  return [...first, ...csv];
}

const csvOf = (files: CsvFiles, name: string) => (files as Record<string, CsvFileResult>)[name];

export function contentHash(files: CsvFiles): string {
  const h = createHash('sha256');
  for (const name of csvFileNames(files)) h.update(`${name} ${csvOf(files, name).sha256}\n`);
  return h.digest('hex');
}

export function businessHash(files: CsvFiles, partial: boolean): string {
  const h = createHash('sha256');
  h.update(`partial ${partial}\n`);
  for (const name of csvFileNames(files)) if (!JOURNAL_FILE.test(name)) h.update(`${name} ${csvOf(files, name).business_sha256}\n`);
  return h.digest('hex');
}

/** Run ids as bigint text, sorted numerically. */
export function sortRunIds(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
}

/** Two-space JSON with a final newline; key order is fixed by construction. */
export function manifestText(m: ReportManifest): string {
  return `${JSON.stringify(m, null, 2)}\n`;
}
