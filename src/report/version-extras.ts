import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Knex } from '../db/knex-types.ts';
import { reportedCodeCounts, reportedDays } from '../db/report-charts.ts';
import { listReportVersions, streamLateChanges, streamOpenItems } from '../db/reports.ts';
import { withCaseColumns } from './case-cells.ts';
import { chartDays, renderDayCharts, type DayChartData, type RenderedChart } from './charts/day-charts.ts';
import type { CodeCount } from './charts/specs.ts';
import type { DayFacts } from './day-pass.ts';
import type { DayItemSheets } from './day-sheets.ts';
import { filePurpose } from './file-purposes.ts';
import { timeFormatter } from '../tabular/format.ts';
import { reportHtml } from './html/report-html.ts';
import type { ExtraFileName, ExtraFileResult } from './manifest.ts';
import { AGING_BUCKETS } from './open-items.ts';
import { reportTable } from './report-tables.ts';
import type { ReportScope } from './report-scope.ts';
import { ROLLFORWARD_SUMMARY } from './rollforward-tables.ts';
import { LATE_CHANGE_TABLE_COLUMNS, OPEN_ITEM_TABLE_COLUMNS, lateChangeTableRow, openItemTableRow } from './sheet-tables.ts';
import type { Table, TableColumn, TableRow } from '../tabular/table.ts';
import { summarySheets } from './summary-sheets.ts';
import { withOpenUnknownOrders } from './unknown-orders.ts';
import { writeFileSynced } from './version-dir.ts';
import { fittedWidth, type WorkbookFile } from '../tabular/workbook/writer.ts';

/** The version the extras are written for: its number, and where and when. */
export interface VersionOf {
  /** The version's (temp) directory. */
  dir: string;
  version: number;
  timezone: string;
  now: Date;
  pageSize?: number;
  /** The account the version is of, as its files name it; undefined with one account. */
  accountName?: string;
}

type Extras = Partial<Record<ExtraFileName, ExtraFileResult>>;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * reconciliation.xlsx, the chart PNGs and report.html of a new version, from the pass over its day
 * (DayFacts) and in the same REPEATABLE READ snapshot, written after its CSVs (whose row counts
 * report.html names) once the version's number is known. Stages, in order: the workbook's
 * remaining sheets, the charts, report.html.
 */
export async function writeVersionExtras(
  tx: Knex.Transaction,
  scope: ReportScope,
  v: VersionOf,
  facts: DayFacts,
  daySheets: DayItemSheets,
): Promise<Extras> {
  const files: Extras = { 'reconciliation.xlsx': await finishWorkbook(tx, scope, v, facts, daySheets) };
  const charts = await dayCharts(tx, scope, facts, daySheets);
  for (const c of charts) {
    const name = `chart-${c.name}.png` as ExtraFileName;
    await writeFileSynced(path.join(v.dir, name), c.png);
    files[name] = { rows: null, bytes: c.png.length, sha256: sha256(c.png) };
  }
  const html = await versionHtml(tx, scope, v, facts, daySheets, charts);
  await writeFileSynced(path.join(v.dir, 'report.html'), html);
  files['report.html'] = { rows: null, bytes: Buffer.byteLength(html), sha256: sha256(html) };
  return files;
}

/**
 * The workbook's sheets after Items and Mismatches (written in the pass): the Summary first, then
 * the open items and late changes, each from a fresh cursor rather than held, so memory stays
 * bounded at any size, then the other tables; each on the sheet the index names.
 */
async function finishWorkbook(
  tx: Knex.Transaction,
  scope: ReportScope,
  v: VersionOf,
  facts: DayFacts,
  daySheets: DayItemSheets,
): Promise<ExtraFileResult> {
  const { workbook } = daySheets;
  try {
    const [orders, ...others] = [...facts.summaryTables].sort(
      (a, b) => Number(b.name === 'summary_orders') - Number(a.name === 'summary_orders'),
    );
    const { summary, verdicts } = summarySheets(orders);
    workbook.tableSheet(sheetOf(orders), summary, [
      facts.headline,
      `Business day ${scope.date} in ${v.timezone}, version ${v.version}${scope.partial ? ' (written before the day was over)' : ''}.`,
      "Amounts are numbers with thousands separators and their currency's decimals, or all of their own when an amount is finer than the currency's minor unit (never rounded); an amount shaded orange is text, because it has more than 15 significant digits, which a spreadsheet number cannot hold exactly.",
    ]);
    workbook.tableSheet('Orders by verdict', verdicts);
    await streamSheet(workbook, sheetName('open_items'), OPEN_ITEM_TABLE_COLUMNS, async function* () {
      const open = withCaseColumns(streamOpenItems(tx, scope.earlier, v.timezone, v.pageSize, scope.account), v.now);
      for await (const page of withOpenUnknownOrders(tx, open, facts.openUnknown, v.now))
        yield page.map((r) => openItemTableRow(r, scope.date));
    });
    await streamSheet(workbook, sheetName('late_changes'), LATE_CHANGE_TABLE_COLUMNS, async function* () {
      for await (const page of streamLateChanges(tx, scope.earlierDays, scope.earlier, v.timezone, v.pageSize, scope.account))
        yield page.map(lateChangeTableRow);
    });
    for (const t of others) workbook.tableSheet(sheetOf(t), t);
    for (const t of [facts.balances, facts.rates, facts.journal, facts.trialBalance]) tableSheet(workbook, sheetOf(t), t);
  } catch (err) {
    await workbook.abort();
    throw err;
  }
  return workbook.close();
}

/** A table's tab: the index's sheet, or its title cut to the 31 characters a tab holds. */
function sheetOf(t: Table): string {
  return reportTable(t.name)?.sheet ?? t.title.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31);
}

function sheetName(name: string): string {
  const sheet = reportTable(name)?.sheet;
  if (!sheet) throw new Error(`${name}: no workbook sheet in the index of report tables`);
  return sheet;
}

async function streamSheet(
  workbook: WorkbookFile,
  name: string,
  columns: readonly TableColumn[],
  pages: () => AsyncIterable<readonly TableRow[]>,
): Promise<void> {
  const sheet = workbook.sheet(name, columns);
  for await (const page of pages()) {
    for (const row of page) {
      const wait = sheet.add(row);
      if (wait) await wait;
    }
  }
  sheet.close();
}

/** A small table as a data sheet, its columns as wide as their longest value; one row per currency already, so no totals rows. */
function tableSheet(workbook: WorkbookFile, name: string, table: Table): void {
  const columns = table.columns.map((c, i) => ({
    ...c,
    width: fittedWidth(
      c,
      table.rows.map((r) => r[i]),
    ),
  }));
  const sheet = workbook.sheet(name, columns, { totals: false, printScale: table.printScale });
  for (const row of table.rows) sheet.add(row);
  sheet.close();
}

/** The charts: mismatches by code over the recorded days before D and D's own, the roll-forward, open items by age. */
async function dayCharts(tx: Knex.Transaction, scope: ReportScope, facts: DayFacts, daySheets: DayItemSheets): Promise<RenderedChart[]> {
  const days = chartDays(scope.date);
  const earlier = { first: days[0], end: scope.date };
  const codeCounts: CodeCount[] = [
    ...(await reportedCodeCounts(tx, earlier, scope.account)),
    ...[...daySheets.mismatches.codes.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([code, orders]) => ({ day: scope.date, code, orders })),
  ];
  // The earlier days of the chart with a recorded version; the others are drawn as "no report".
  const reportedDaysOf = [...(await reportedDays(tx, earlier, scope.account)), scope.date];
  return renderDayCharts({
    date: scope.date,
    codeCounts,
    reportedDays: reportedDaysOf,
    rollForward: rollForwardBars(facts),
    agingBuckets: AGING_BUCKETS,
    aging: facts.openTotals
      .rows()
      .flatMap((t) => [...t.verdicts.entries()].map(([state, orders]) => ({ bucket: t.bucket, state, orders }))),
  });
}

/** The roll-forward chart's bars per currency with both snapshots, read from the roll-forward table's row. */
function rollForwardBars(facts: DayFacts): DayChartData['rollForward'] {
  const table = facts.summaryTables.find((t) => t.name === ROLLFORWARD_SUMMARY.name);
  return facts.currencies.flatMap((c) => {
    const r = facts.rollForwards.get(c);
    if (!r || !r.opening || !r.closing) return [];
    const row = table?.rows.find((x) => x[0] === c);
    const at = (name: string) => (row ? (row[table!.columns.findIndex((k) => k.name === name)] as string | null) : null);
    return [
      {
        currency: c,
        opening: r.openingTotal,
        payments_in: at('payments_in'),
        payouts_out: at('payouts_out'),
        timing_movement: at('timing_movement'),
        closing: r.closingTotal,
        drift: r.drift,
      },
    ];
  });
}

/** report.html: the charts, the tables the index shows there, every version of the day, the files. */
async function versionHtml(
  tx: Knex.Transaction,
  scope: ReportScope,
  v: VersionOf,
  facts: DayFacts,
  daySheets: DayItemSheets,
  charts: readonly RenderedChart[],
): Promise<string> {
  const formatTime = timeFormatter(v.timezone);
  const createdAt = formatTime(v.now.getTime());
  const earlierVersions = (await listReportVersions(tx, scope.date, scope.account)).map((r) => ({
    version: r.version,
    createdAt: formatTime(r.created_at.getTime()),
    headline: (r.manifest as { headline?: string } | null)?.headline ?? null,
  }));
  const csvRows: Record<string, number> = Object.fromEntries(Object.entries(facts.files).map(([name, f]) => [name, f!.rows]));
  const fileList = [
    'reconciliation.xlsx',
    'report.html',
    ...Object.keys(csvRows),
    ...charts.map((c) => `chart-${c.name}.png`),
    'manifest.json',
  ].map((name) => ({ name, purpose: filePurpose(name), rows: csvRows[name] ?? null }));
  const { mismatches } = daySheets;
  return reportHtml(
    {
      date: scope.date,
      ...(v.accountName !== undefined ? { account: v.accountName } : {}),
      timezone: v.timezone,
      version: v.version,
      createdAt,
      headline: facts.headline,
      partial: scope.partial,
      charts: [...charts],
      tables: facts.summaryTables.filter((t) => reportTable(t.name)?.html === 'table'),
      mismatches: { name: 'mismatches', title: 'Mismatches', columns: mismatches.columns, rows: mismatches.preview },
      mismatchCount: mismatches.count,
      versions: [...earlierVersions, { version: v.version, createdAt, headline: facts.headline }],
      files: fileList,
    },
    formatTime,
  );
}
