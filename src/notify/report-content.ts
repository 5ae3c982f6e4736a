import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { MailAttachment } from './mailer.ts';
import { readReportSummary, reportHeadline } from './report-summary.ts';
import { escapeHtml, htmlTable, textTable } from './html.ts';

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
  /**
   * The newest version of the same day e-mailed before this one, or null when this is the day's
   * first e-mail: accounting experiences versions by what reached them, not by what was written.
   */
  previouslySent?: number | null;
}

/** The workbook is attached while it is at most this size; above it the e-mail says where it is. */
export const WORKBOOK_ATTACH_LIMIT_BYTES = 15 * 1024 * 1024;

/** Charts a version holds as PNG (chart-<name>.png), shown inline in the e-mail in this order. */
const CHART_ORDER = ['mismatches-by-code', 'roll-forward', 'open-items-aging'];

/** Subject, bodies and attachments of one version, read from its directory. */
export function buildReportEmail(v: ReportVersionRef, opts: ReportContentOptions = {}): ReportEmailContent {
  const dir = path.resolve(v.directory);
  const summary = readReportSummary(fs.readFileSync(path.join(dir, 'summary.csv')));
  const line = reportHeadline(summary);
  const label = versionLabel(v.business_date, v.version, opts.previouslySent ?? null);
  const subject = `payrecon ${v.business_date}: ${line} (${label.short})`;

  const files = reportFiles(dir);
  const attachments = files.map((f) => attachment(path.join(dir, f), opts.gzipAboveBytes ?? GZIP_ABOVE_BYTES));
  // The workbook is what most readers open; it goes first, while a mail server takes its size.
  const workbook = path.join(dir, 'reconciliation.xlsx');
  const archived: string[] = [];
  if (fs.existsSync(workbook)) {
    const size = fs.statSync(workbook).size;
    if (size <= WORKBOOK_ATTACH_LIMIT_BYTES) attachments.unshift(workbookAttachment(workbook));
    else archived.push(`reconciliation.xlsx (${(size / 1024 / 1024).toFixed(0)} MB, too large to e-mail)`);
  }
  const attachedNames = attachments.map((a) => a.filename).join(', ');
  const charts = CHART_ORDER.map((name) => ({ name, file: path.join(dir, `chart-${name}.png`) })).filter((c) => fs.existsSync(c.file));
  const inline: MailAttachment[] = charts.map((c) => ({
    filename: `${c.name}.png`,
    path: c.file,
    contentType: 'image/png',
    cid: `${c.name}@payrecon`,
  }));
  // Where the files are kept, named the way accounting asks for them (never a path on the server).
  const where = `report ${v.business_date} version ${v.version}`;
  const archiveLine = archived.length ? `Not attached: ${archived.join(', ')}; it is kept with ${where}.` : '';

  const intro = `Reconciliation report for ${v.business_date}: ${line}.`;
  const text = [
    intro,
    label.long,
    '',
    ...summary.tables.flatMap((t) => [`${t.title}`, textTable(t.header, t.rows), '']),
    `Attached: ${attachedNames}.`,
    archiveLine,
    charts.length ? 'The charts are in the HTML part of this e-mail, and in report.html of this version.' : '',
    '',
  ]
    .filter((l, i, all) => l !== '' || all[i - 1] !== '')
    .join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:Arial,sans-serif;font-size:14px;color:#1d2330">',
    `<p style="font-size:16px;font-weight:600">${escapeHtml(intro)}</p>`,
    `<p>${escapeHtml(label.long)}</p>`,
    ...charts.map(
      (c) =>
        `<p><img src="cid:${c.name}@payrecon" alt="${escapeHtml(c.name.replaceAll('-', ' '))}" width="640" style="max-width:100%;height:auto"></p>`,
    ),
    ...summary.tables.map((t) => `<h3>${escapeHtml(t.title)}</h3>\n${htmlTable(t.header, t.rows)}`),
    `<p>Attached: ${escapeHtml(attachedNames)}.${archiveLine ? `<br>${escapeHtml(archiveLine)}` : ''}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html, attachments: [...attachments, ...inline] };
}

/**
 * How a version reads to the person receiving it: the day's first e-mail says it is the first
 * (and which version it carries: earlier ones may have been written and never sent); a later one
 * says which e-mailed version it replaces.
 */
export function versionLabel(date: string, version: number, previouslySent: number | null): { short: string; long: string } {
  if (previouslySent === null) {
    return {
      short: `first report, version ${version}`,
      long: `This is the first report for ${date} e-mailed to you; it carries version ${version}.`,
    };
  }
  if (previouslySent === version) {
    return {
      short: `version ${version}, sent again`,
      long: `Version ${version} of ${date}, sent again: nothing changed since it was first e-mailed.`,
    };
  }
  return {
    short: `update: version ${version} replaces ${previouslySent}`,
    long: `An update for ${date}: version ${version} replaces version ${previouslySent}, which you received earlier.`,
  };
}

function workbookAttachment(file: string): MailAttachment {
  return { filename: 'reconciliation.xlsx', path: file, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };
}

/** The version's CSV files, in the order the report writer lists them (unknown extras after, by name). */
function reportFiles(dir: string): string[] {
  const order = manifestFileOrder(dir);
  const found = fs.readdirSync(dir).filter((f) => f.endsWith('.csv'));
  return [...order.filter((f) => found.includes(f)), ...found.filter((f) => !order.includes(f)).sort()];
}

/** The files in the order the version's manifest lists them; none for a version without one. */
function manifestFileOrder(dir: string): string[] {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { files?: Record<string, unknown> };
    return Object.keys(manifest.files ?? {});
  } catch {
    return [];
  }
}

/** Streamed from disk, never read whole into memory: items.csv of a busy day can be large. */
function attachment(file: string, gzipAbove: number): MailAttachment {
  const name = path.basename(file);
  if (fs.statSync(file).size > gzipAbove) {
    return { filename: `${name}.gz`, content: fs.createReadStream(file).pipe(zlib.createGzip()), contentType: 'application/gzip' };
  }
  return { filename: name, path: file, contentType: 'text/csv; charset=utf-8' };
}
