import { createHash } from 'node:crypto';
import path from 'node:path';
import { renderDayCharts, type DayChartData } from './charts/day-charts.ts';
import type { CodeCount } from './charts/specs.ts';
import { filePurpose } from './file-purposes.ts';
import { reportHtml, type VersionLine } from './html/report-html.ts';
import type { DayItemSheets } from './day-sheets.ts';
import { ROLLFORWARD_SUMMARY, TIMING_ITEMS } from './rollforward-tables.ts';
import type { Table, TableColumn, TableRow } from './table.ts';
import { summarySheets } from './summary-sheets.ts';
import { writeFileSynced } from './version-dir.ts';
import { fittedWidth, type WorkbookFile } from './workbook/writer.ts';

import type { ExtraFileName, ExtraFileResult } from './manifest.ts';

/** A streamed table: its columns and a fresh pass over its rows each time `pages` is called. */
export interface StreamedTable {
  readonly columns: readonly TableColumn[];
  readonly pages: () => AsyncIterable<readonly TableRow[]>;
}

export interface VersionExtrasInput {
  /** The version's (temp) directory. */
  dir: string;
  date: string;
  timezone: string;
  version: number;
  /** Local ISO time the version is written. */
  createdAt: string;
  headline: string;
  partial: boolean;
  /** Summary tables in reading order (orders, roll-forward, timing items, open items, late changes). */
  summary: readonly Table[];
  /** The workbook with the day's Items and Mismatches sheets written, in the pass that wrote items.csv. */
  daySheets: DayItemSheets;
  openItems: StreamedTable;
  lateChanges: StreamedTable;
  balances: Table;
  rates: Table;
  /** The day's journal, one line a row (journal.csv). */
  journal: Table;
  /** Mismatched orders of the 29 business days before the day (the day's own are counted here). */
  earlierCodeCounts: readonly CodeCount[];
  /** The earlier days of the chart with a recorded version; the others are drawn as "no report". */
  earlierReportedDays: readonly string[];
  chart: Pick<DayChartData, 'rollForward' | 'aging' | 'agingBuckets'>;
  /** Every earlier version of the day (this one is added). */
  versions: readonly VersionLine[];
  /** Row counts of the CSV files, for the files list of report.html. */
  csvRows: Readonly<Record<string, number>>;
  formatTime: (ms: number) => string;
}

/**
 * The sheet of each summary table, one table per sheet (the Summary keeps the money per currency
 * and direction); a table not named here gets a sheet named by its title.
 */
export const SUMMARY_SHEETS: Readonly<Record<string, string>> = {
  summary_orders: 'Summary',
  [ROLLFORWARD_SUMMARY.name]: 'Roll-forward',
  [TIMING_ITEMS.name]: 'Timing items',
  summary_unknown_orders: 'Unknown orders',
  summary_identity_mismatches: 'Identity mismatches',
  summary_open_items: 'Open items by age',
  summary_late_changes: 'Late changes by currency',
  summary_cases: 'Cases',
  summary_case_activity: 'Case activity',
};

/** A tab name from a table: its sheet, or its title cut to the 31 characters a tab holds. */
const sheetName = (t: Table): string => SUMMARY_SHEETS[t.name] ?? t.title.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31);

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * reconciliation.xlsx, the chart PNGs and report.html of one version, written after its CSVs
 * (whose row counts they name). The workbook's remaining sheets are written one after another,
 * each from a fresh pass over its rows, so memory stays bounded at any size.
 */
export async function writeVersionExtras(input: VersionExtrasInput): Promise<Partial<Record<ExtraFileName, ExtraFileResult>>> {
  const { workbook, mismatches } = input.daySheets;
  try {
    const [orders, ...others] = [...input.summary].sort(
      (a, b) => Number(b.name === 'summary_orders') - Number(a.name === 'summary_orders'),
    );
    const { summary, verdicts } = summarySheets(orders);
    workbook.tableSheet('Summary', summary, [
      input.headline,
      `Business day ${input.date} in ${input.timezone}, version ${input.version}${input.partial ? ' (written before the day was over)' : ''}.`,
      "Amounts are numbers with thousands separators and their currency's decimals, or all of their own when an amount is finer than the currency's minor unit (never rounded); an amount shaded orange is text, because it has more than 15 significant digits, which a spreadsheet number cannot hold exactly.",
    ]);
    workbook.tableSheet('Orders by verdict', verdicts);
    await streamSheet(workbook, 'Open items', input.openItems);
    await streamSheet(workbook, 'Late changes', input.lateChanges);
    for (const t of others) workbook.tableSheet(sheetName(t), t);
    tableSheet(workbook, 'Balances', input.balances);
    tableSheet(workbook, 'Rates', input.rates);
    tableSheet(workbook, 'Journal', input.journal);
  } catch (err) {
    await workbook.abort();
    throw err;
  }
  const files: Partial<Record<ExtraFileName, ExtraFileResult>> = {};
  files['reconciliation.xlsx'] = await workbook.close();

  const codeCounts: CodeCount[] = [
    ...input.earlierCodeCounts,
    ...[...mismatches.codes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([code, orders]) => ({ day: input.date, code, orders })),
  ];
  const reported = [...input.earlierReportedDays, input.date];
  const charts = await renderDayCharts({ date: input.date, codeCounts, reportedDays: reported, ...input.chart });
  for (const c of charts) {
    const name = `chart-${c.name}.png` as ExtraFileName;
    await writeFileSynced(path.join(input.dir, name), c.png);
    files[name] = { rows: null, bytes: c.png.length, sha256: sha256(c.png) };
  }

  const fileList = [
    'reconciliation.xlsx',
    'report.html',
    ...Object.keys(input.csvRows),
    ...charts.map((c) => `chart-${c.name}.png`),
    'manifest.json',
  ].map((name) => ({ name, purpose: filePurpose(name), rows: input.csvRows[name] ?? null }));
  const html = reportHtml(
    {
      date: input.date,
      timezone: input.timezone,
      version: input.version,
      createdAt: input.createdAt,
      headline: input.headline,
      partial: input.partial,
      charts,
      tables: input.summary,
      mismatches: { name: 'mismatches', title: 'Mismatches', columns: mismatches.columns, rows: mismatches.preview },
      mismatchCount: mismatches.count,
      versions: [...input.versions, { version: input.version, createdAt: input.createdAt, headline: input.headline }],
      files: fileList,
    },
    input.formatTime,
  );
  await writeFileSynced(path.join(input.dir, 'report.html'), html);
  files['report.html'] = { rows: null, bytes: Buffer.byteLength(html), sha256: sha256(html) };
  return files;
}

async function streamSheet(workbook: WorkbookFile, name: string, source: StreamedTable): Promise<void> {
  const sheet = workbook.sheet(name, source.columns);
  for await (const page of source.pages()) {
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
  const sheet = workbook.sheet(name, columns, { totals: false });
  for (const row of table.rows) sheet.add(row);
  sheet.close();
}
