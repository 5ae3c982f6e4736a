import { createHash } from 'node:crypto';
import type { CsvFileResult } from './csv-file.ts';

/** The CSV files of a version, in the order the manifest and the content hash list them. */
export const REPORT_FILES = ['items.csv', 'mismatches.csv', 'summary.csv', 'balances.csv', 'rates.csv'] as const;
export type ReportFile = (typeof REPORT_FILES)[number];

/**
 * manifest.json of one version. It is written once, with the version, and never rewritten:
 * which version is current lives in the date directory's CURRENT file and in report_versions
 * (a later version supersedes this one without touching it, since it may have been e-mailed).
 * `supersedes` names the version that was current when this one was written.
 */
export interface ReportManifest {
  format: 'payrecon-report/1';
  business_date: string;
  timezone: string;
  /** The business day as local instants: [from, to). */
  window: { from: string; to: string };
  version: number;
  supersedes: number | null;
  created_at: string;
  /** SHA-256 over the CSV files' names and hashes: equal hashes mean byte-identical reports. */
  content_hash: string;
  /** job_runs whose checks or snapshots appear in the files, ascending. */
  run_ids: string[];
  files: Record<ReportFile, CsvFileResult>;
}

export function contentHash(files: Record<ReportFile, CsvFileResult>): string {
  const h = createHash('sha256');
  for (const name of REPORT_FILES) h.update(`${name} ${files[name].sha256}\n`);
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
