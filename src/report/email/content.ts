import fs from 'node:fs';
import path from 'node:path';
import type { MailAttachment } from '../../notify/mailer.ts';
import { html, type Html } from '../../html/html.ts';
import { htmlTable, textTable } from '../html/html.ts';
import { timeFormatter } from '../../tabular/format.ts';
import { tableHtml } from '../html/table-html.ts';
import { SUMMARY_SPECS } from '../report-tables.ts';
import { MOVEMENTS_TABLE } from '../movement-table.ts';
import { Decimal } from '../../money/decimal.ts';
import { tableFromCsv } from '../table-csv.ts';
import { tableText } from '../text-table.ts';
import type { Table } from '../../tabular/table.ts';
import { readReportSummary, reportHeadline } from './legacy-summary.ts';

/** A subject longer than this is cut in most mail clients' lists: the headline is shortened to fit. */
export const SUBJECT_MAX_CHARS = 89;

/**
 * The CSV files attached: mismatches.csv (what accounting works through) and the journal files
 * (journal*.csv, posted to the ledger) when the version has them. The other CSVs are for
 * machines and stay with the version (console, report.html); the workbook holds every table.
 */
export const isAttachedCsv = (name: string): boolean => name === 'mismatches.csv' || /^journal.*\.csv$/.test(name);

/** E-mail width the layout is made for (a reading pane): nothing wider than this scrolls the page. */
const EMAIL_WIDTH_PX = 680;

/**
 * The CSV files are attached while together at most 2 MB: a day of a few thousand orders. Above
 * it none is attached (the workbook carries every table, and the files are kept with the version,
 * downloadable from the console): a mail server refuses large messages, and base64 adds a third.
 */
export const CSV_ATTACH_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * The workbook is attached whatever the CSVs' size, while at most this size (a mail server
 * refuses messages above 10-25 MB); above it the e-mail says where it is kept.
 */
export const WORKBOOK_ATTACH_LIMIT_BYTES = 15 * 1024 * 1024;

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
  csvAttachLimitBytes?: number;
  /**
   * The newest version of the same day e-mailed before this one, or null when this is the day's
   * first e-mail: accounting experiences versions by what reached them, not by what was written.
   */
  previouslySent?: number | null;
}

/** Charts a version holds as PNG (chart-<name>.png), shown inline in the e-mail in this order. */
const CHART_ORDER = ['mismatches-by-code', 'roll-forward', 'open-items-aging'];

/** Rows of one summary table shown in the e-mail (timing items can be many on a busy day); the rest are in its file. */
const EMAIL_TABLE_ROWS = 50;

/** A table of the e-mail, rendered in both parts. */
interface EmailTable {
  title: string;
  html: Html;
  text: string;
}

/** Subject, bodies and attachments of one version, read from its directory. */
export function buildReportEmail(v: ReportVersionRef, opts: ReportContentOptions = {}): ReportEmailContent {
  const dir = path.resolve(v.directory);
  const manifest = readManifest(dir);
  const { headline: line, tables } = summaryOf(dir, manifest);
  const label = versionLabel(v.business_date, v.version, opts.previouslySent ?? null);
  // With several accounts the version's manifest names its account, and so do the subject and the intro.
  const account = manifest?.account ? `${manifest.account.name} ` : '';
  const subject = fitSubject(`payrecon ${account}${v.business_date}: `, line, ` (${label.short})`);
  const money = moneyTable(dir, manifest);

  const { attachments, notAttached } = fileAttachments(dir, manifest, opts.csvAttachLimitBytes ?? CSV_ATTACH_LIMIT_BYTES);
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
  const archiveLine = notAttached.length
    ? `Not attached: ${notAttached.join('; ')}. They are kept with ${where}, and can be downloaded from the console.`
    : '';

  const intro = `Reconciliation report for ${account}${v.business_date}: ${line}.`;
  const text = [
    intro,
    label.long,
    '',
    ...(money ? [money.title, money.text, ''] : []),
    attachedNames ? `Attached: ${attachedNames}.` : '',
    archiveLine,
    'The other files of this version (CSV for scripts, report.html) are in the console.',
    '',
    ...tables.flatMap((t) => [t.title, t.text, '']),
    charts.length ? 'The charts are in the HTML part of this e-mail, and in report.html of this version.' : '',
    '',
  ]
    .filter((l, i, all) => l !== '' || all[i - 1] !== '')
    .join('\n');
  // Money first, then the files, then charts and the detail tables; a wide table scrolls in its own
  // box so the message never scrolls sideways in a reading pane.
  // The templates are the message's markup as sent: prettier would reflow the HTML inside them.
  // prettier-ignore
  const scroll = (inner: Html) => html`<div style="max-width:100%;overflow-x:auto">${inner}</div>`;
  // prettier-ignore
  const body = html`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;padding:8px;font-family:Arial,sans-serif;font-size:14px;color:#1d2330"><div style="max-width:${EMAIL_WIDTH_PX}px">
<p style="font-size:16px;font-weight:600">${intro}</p>
<p>${label.long}</p>
${money ? html`<h3>${money.title}</h3>\n${scroll(money.html)}\n` : null}<p>${attachedNames ? `Attached: ${attachedNames}.` : null}${archiveLine ? html`<br>${archiveLine}` : null}<br>The other files of this version (CSV for scripts, report.html) are in the console.</p>
${charts.map(
  (c) =>
    html`<p><img src="cid:${c.name}@payrecon" alt="${c.name.replaceAll('-', ' ')}" width="640" style="max-width:100%;height:auto"></p>\n`,
)}${tables.map((t) => html`<h3>${t.title}</h3>\n${scroll(t.html)}\n`)}</div></body></html>`;
  const htmlText = body.text;
  return { subject, text, html: htmlText, attachments: [...attachments, ...inline] };
}

/**
 * "payrecon <date>: " + headline + " (version …)", within SUBJECT_MAX_CHARS: a long headline loses
 * its earlier-days part (after ";"), else is cut after its last whole part (","), else at a word; it ends "…".
 */
export function fitSubject(head: string, line: string, tail: string): string {
  const room = SUBJECT_MAX_CHARS - head.length - tail.length;
  if (line.length <= room) return head + line + tail;
  const cut = line.slice(0, Math.max(0, room - 1));
  // Earlier days' items (after ";") go first: the day's own counts are the news.
  const day = line.indexOf(';');
  if (day > 0 && day <= room - 1) return `${head}${line.slice(0, day)}…${tail}`;
  const part = cut.lastIndexOf(',');
  const kept = part > 0 ? cut.slice(0, part) : cut.replace(/\s+\S*$/, '') || cut;
  return `${head}${kept}…${tail}`;
}

/**
 * Per currency the money of the day: net and fees (summary_orders total rows), mismatches, what
 * came in and went out by movements (movements.csv) and the roll-forward drift (summary_rollforward):
 * what accounting reads first.
 */
function moneyTable(dir: string, manifest: ManifestView | null): EmailTable | null {
  const ordersFile = path.join(dir, 'summary_orders.csv');
  if (!fs.existsSync(ordersFile)) return null;
  const orders = tableFromCsv(SUMMARY_SPECS[0], fs.readFileSync(ordersFile));
  const col = (t: Table, name: string) => t.columns.findIndex((c) => c.name === name);
  const rollSpec = SUMMARY_SPECS.find((s) => s.name === 'summary_rollforward');
  const rollFile = path.join(dir, 'summary_rollforward.csv');
  const roll = rollSpec && fs.existsSync(rollFile) ? tableFromCsv(rollSpec, fs.readFileSync(rollFile)) : null;
  const drift = new Map<string, string>();
  if (roll)
    for (const r of roll.rows)
      drift.set(String(r[col(roll, 'currency')]), r[col(roll, 'drift')] === null ? 'not checked' : String(r[col(roll, 'drift')]));
  const moved = movementsInOut(dir);
  const [cur, dirCol] = [col(orders, 'currency'), col(orders, 'direction')];
  const pick = (r: readonly unknown[], name: string) => {
    const i = col(orders, name);
    return i < 0 ? null : (r[i] as string | number | null);
  };
  const table: Table = {
    name: 'money',
    title: 'Money per currency',
    columns: [
      { name: 'currency', kind: 'text' },
      { name: 'net', kind: 'amount' },
      { name: 'fees', kind: 'amount' },
      { name: 'mismatch', kind: 'count', label: 'mismatches' },
      { name: 'movements_in', kind: 'amount', label: 'movements in' },
      { name: 'movements_out', kind: 'amount', label: 'movements out' },
      { name: 'drift', kind: 'text' },
      { name: 'net_usdt', kind: 'decimal', label: 'net USDT', decimals: 2 },
    ],
    rows: orders.rows
      .filter((r) => r[dirCol] === 'total')
      .map((r) => {
        const c = String(r[cur]);
        const m = moved?.get(c);
        // A version written before movements.csv says nothing of them: empty, not 0.
        const inOut = moved ? [m?.in.toFixed() ?? '0', m?.out.toFixed() ?? '0'] : [null, null];
        return [r[cur], pick(r, 'net'), pick(r, 'fees'), pick(r, 'mismatch'), ...inOut, drift.get(c) ?? null, pick(r, 'net_usdt')];
      }),
  };
  const formatTime = timeFormatter(manifest?.timezone ?? 'UTC');
  return { title: table.title, html: tableHtml(table, formatTime), text: tableText(table, formatTime) };
}

/**
 * Per currency what the day's movements (movements.csv: recorded, approved top-ups, withdrawals and
 * adjustments the roll-forward counted) brought in and took out; null for a version without the file.
 */
function movementsInOut(dir: string): Map<string, { in: Decimal; out: Decimal }> | null {
  const file = path.join(dir, `${MOVEMENTS_TABLE.name}.csv`);
  if (!fs.existsSync(file)) return null;
  const t = tableFromCsv(MOVEMENTS_TABLE, fs.readFileSync(file));
  const [cur, effect] = ['currency', 'effect'].map((n) => t.columns.findIndex((c) => c.name === n));
  const out = new Map<string, { in: Decimal; out: Decimal }>();
  for (const r of t.rows) {
    const sum = out.get(String(r[cur])) ?? { in: new Decimal(0), out: new Decimal(0) };
    const e = new Decimal(String(r[effect] ?? '0'));
    if (e.isNegative()) sum.out = sum.out.minus(e);
    else sum.in = sum.in.plus(e);
    out.set(String(r[cur]), sum);
  }
  return out;
}

interface ManifestView {
  account?: { id: string; name: string };
  headline?: string;
  timezone?: string;
  files?: Record<string, unknown>;
}

function readManifest(dir: string): ManifestView | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ManifestView;
  } catch {
    return null;
  }
}

/**
 * The headline and the summary tables, rendered through the same table definitions as the files,
 * report.html and the workbook. Empty tables are left out, but for the orders and the roll-forward.
 * A version written before the summary was one file per table has summary.csv instead.
 */
function summaryOf(dir: string, manifest: ManifestView | null): { headline: string; tables: EmailTable[] } {
  const legacy = path.join(dir, 'summary.csv');
  if (!fs.existsSync(path.join(dir, `${SUMMARY_SPECS[0].name}.csv`)) && fs.existsSync(legacy)) {
    const summary = readReportSummary(fs.readFileSync(legacy));
    return {
      headline: reportHeadline(summary),
      tables: summary.tables.map((t) => ({ title: t.title, html: htmlTable(t.header, t.rows), text: textTable(t.header, t.rows) })),
    };
  }
  const formatTime = timeFormatter(manifest?.timezone ?? 'UTC');
  const tables: Table[] = SUMMARY_SPECS.flatMap((spec, i) => {
    const file = path.join(dir, `${spec.name}.csv`);
    if (!fs.existsSync(file)) return [];
    const t = tableFromCsv(spec, fs.readFileSync(file));
    return i < 2 || t.rows.length > 0 ? [t] : [];
  });
  return {
    headline: manifest?.headline ?? 'see the attached report',
    tables: tables.map((t) => ({
      title: t.title,
      html: tableHtml(t, formatTime, { maxRows: EMAIL_TABLE_ROWS }),
      text: tableText(t, formatTime, { maxRows: EMAIL_TABLE_ROWS }),
    })),
  };
}

/**
 * The subject says it short (`v2, replaces v1`: the subject has room for the headline), the body in full.
 * How a version reads to the person receiving it: the day's first e-mail says it is the first
 * (and which version it carries: earlier ones may have been written and never sent); a later one
 * says which e-mailed version it replaces.
 */
export function versionLabel(date: string, version: number, previouslySent: number | null): { short: string; long: string } {
  if (previouslySent === null && version === 1) {
    return {
      // The subject's room is the headline's: v1 is a first report by its number; the body says it in full.
      short: `v${version}`,
      long: `This is the first report for ${date} e-mailed to you; it carries version ${version}.`,
    };
  }
  // A first e-mail of a later version: earlier ones were written and never sent, so it is no "first report".
  if (previouslySent === null) return { short: `v${version}`, long: `Version ${version} of ${date}.` };
  if (previouslySent === version) {
    return {
      short: `v${version}, sent again`,
      long: `Version ${version} of ${date}, sent again: nothing changed since it was first e-mailed.`,
    };
  }
  return {
    short: `v${version}, replaces v${previouslySent}`,
    long: `Version ${version} of ${date}, replaces version ${previouslySent}, which you received earlier.`,
  };
}

/**
 * The workbook first (what most readers open), then mismatches.csv and the journal files in the manifest's order while
 * together within the limit; what is left out is named with its size.
 */
function fileAttachments(
  dir: string,
  manifest: ManifestView | null,
  csvLimit: number,
): { attachments: MailAttachment[]; notAttached: string[] } {
  const attachments: MailAttachment[] = [];
  const notAttached: string[] = [];
  const workbook = path.join(dir, 'reconciliation.xlsx');
  if (fs.existsSync(workbook)) {
    const size = fs.statSync(workbook).size;
    if (size <= WORKBOOK_ATTACH_LIMIT_BYTES)
      attachments.push({
        filename: 'reconciliation.xlsx',
        path: workbook,
        contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      });
    else notAttached.push(`reconciliation.xlsx (${megabytes(size)}, too large to e-mail)`);
  }
  const csvs = csvFiles(dir, manifest).filter(isAttachedCsv);
  const total = csvs.reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
  if (total <= csvLimit) {
    for (const f of csvs) attachments.push({ filename: f, path: path.join(dir, f), contentType: 'text/csv; charset=utf-8' });
  } else {
    notAttached.push(`the CSV files (${megabytes(total)} together, above the ${megabytes(csvLimit)} e-mailed)`);
  }
  return { attachments, notAttached };
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The version's CSV files, in the order its manifest lists them (unknown extras after, by name). */
function csvFiles(dir: string, manifest: ManifestView | null): string[] {
  const order = Object.keys(manifest?.files ?? {});
  const found = fs.readdirSync(dir).filter((f) => f.endsWith('.csv'));
  return [...order.filter((f) => found.includes(f)), ...found.filter((f) => !order.includes(f)).sort()];
}
