import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse';
import type { ReportVersionFiles } from '../db/report-days.ts';

/** Files a version may hold beside its CSVs: the manifest, and the workbook and html where the version has them. */
const EXTRA_FILES = ['reconciliation.xlsx', 'report.html', 'manifest.json'] as const;
const FILE_NAME = /^[a-z0-9_-]+\.(csv|xlsx|html|json)$/;

export interface VersionFile {
  name: string;
  /** Absolute path: the version's recorded directory joined with a name the version itself lists. */
  path: string;
  bytes: number;
}

/**
 * The files of a version that exist on disk. Names come from the version's manifest and a fixed
 * list, never from a request: a download picks one of these by equality.
 */
export function versionFiles(v: ReportVersionFiles): VersionFile[] {
  const listed = Object.keys((v.manifest.files as Record<string, unknown> | undefined) ?? {});
  const dir = path.resolve(v.directory);
  const out: VersionFile[] = [];
  for (const name of [...listed, ...EXTRA_FILES]) {
    if (!FILE_NAME.test(name) || out.some((f) => f.name === name)) continue;
    const file = path.join(dir, name);
    if (path.dirname(file) !== dir) continue;
    try {
      const stat = fs.statSync(file);
      if (stat.isFile()) out.push({ name, path: file, bytes: stat.size });
    } catch {
      /* not written for this version */
    }
  }
  // The workbook first (what most people open), then the html, the CSVs by name, the manifest last.
  const rank = (n: string) => ['xlsx', 'html', 'csv', 'json'].indexOf(n.slice(n.lastIndexOf('.') + 1));
  return out.sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}

export const CONTENT_TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

export interface CsvPreview {
  columns: string[];
  rows: string[][];
  /** True when the file has more rows than were read. */
  truncated: boolean;
}

/** The header and first `limit` rows of a CSV, streamed so a large file is never read whole. */
export async function previewCsv(file: string, limit = 200): Promise<CsvPreview> {
  const parser = fs.createReadStream(file).pipe(parse({ bom: true, relax_column_count: true }));
  let columns: string[] | null = null;
  const rows: string[][] = [];
  let truncated = false;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!columns) columns = record;
      else if (rows.length < limit) rows.push(record);
      else {
        truncated = true;
        break;
      }
    }
  } finally {
    parser.destroy();
  }
  return { columns: columns ?? [], rows, truncated };
}
