import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { MailAttachment } from './mailer.ts';
import { readReportSummary, reportHeadline } from './report-summary.ts';
import { escapeHtml, htmlTable, textTable } from './html.ts';
import { REPORT_FILES } from '../report/manifest.ts';

/**
 * Attachments above 5 MB are sent gzip-compressed (name.csv.gz): CSV compresses about 10:1,
 * and many mail servers refuse messages over 10-25 MB (base64 adds a third on top).
 */
export const GZIP_ABOVE_BYTES = 5 * 1024 * 1024;

/** The report_versions fields the e-mail needs. */
export interface ReportVersionRef {
  business_date: string;
  version: number;
  directory: string;
}

export interface ReportEmailContent {
  subject: string;
  text: string;
  html: string;
  attachments: MailAttachment[];
}

export interface ReportContentOptions {
  gzipAboveBytes?: number;
}

/** Subject, bodies and attachments of one version, read from its directory. */
export function buildReportEmail(v: ReportVersionRef, opts: ReportContentOptions = {}): ReportEmailContent {
  const dir = path.resolve(v.directory);
  const summary = readReportSummary(fs.readFileSync(path.join(dir, 'summary.csv')));
  const line = reportHeadline(summary);
  const rerun = v.version > 1 ? ` (version ${v.version})` : '';
  const subject = `payrecon ${v.business_date}: ${line}${rerun}`;

  const files = reportFiles(dir);
  const attachments = files.map((f) => attachment(path.join(dir, f), opts.gzipAboveBytes ?? GZIP_ABOVE_BYTES));
  const attachedNames = attachments.map((a) => a.filename).join(', ');

  const intro = `Reconciliation report for ${v.business_date}, version ${v.version}: ${line}.`;
  const text = [
    intro,
    '',
    ...summary.tables.flatMap((t) => [`${t.title}`, textTable(t.header, t.rows), '']),
    `Attached: ${attachedNames}.`,
    `Files on the server: ${dir}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(intro)}</p>`,
    ...summary.tables.map((t) => `<h3>${escapeHtml(t.title)}</h3>\n${htmlTable(t.header, t.rows)}`),
    `<p>Attached: ${escapeHtml(attachedNames)}.<br>Files on the server: ${escapeHtml(dir)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html, attachments };
}

/** The version's CSV files, in the order the report writer lists them (unknown extras after, by name). */
function reportFiles(dir: string): string[] {
  const order: readonly string[] = REPORT_FILES;
  const found = fs.readdirSync(dir).filter((f) => f.endsWith('.csv'));
  return [...order.filter((f) => found.includes(f)), ...found.filter((f) => !order.includes(f)).sort()];
}

/** Streamed from disk, never read whole into memory: items.csv of a busy day can be large. */
function attachment(file: string, gzipAbove: number): MailAttachment {
  const name = path.basename(file);
  if (fs.statSync(file).size > gzipAbove) {
    return { filename: `${name}.gz`, content: fs.createReadStream(file).pipe(zlib.createGzip()), contentType: 'application/gzip' };
  }
  return { filename: name, path: file, contentType: 'text/csv; charset=utf-8' };
}
