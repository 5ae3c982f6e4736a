import path from 'node:path';
import type { ReportItemRow } from '../db/reports.ts';
import { ITEM_TABLE_COLUMNS } from './item-table.ts';
import { settledMoney, settledNet } from './order-totals.ts';
import { WORKBOOK_TABS } from './report-tables.ts';
import type { TableColumn, TableRow } from '../tabular/table.ts';
import { WorkbookFile, type SheetWriter } from '../tabular/workbook/writer.ts';

/**
 * The Summary's money per order, on the Items and Mismatches sheets only (items.csv keeps its
 * columns): filled for the orders the Summary sums (provider success, not an identity mismatch),
 * empty for the rest, so the sheets' totals per currency and direction are the Summary's figures
 * and follow the autofilter.
 */
const SUMMARY_MONEY_COLUMNS: readonly TableColumn[] = [
  { name: 'summary_gross', kind: 'amount', label: 'gross' },
  { name: 'summary_paid', kind: 'amount', label: 'paid' },
  { name: 'summary_fee', kind: 'amount', label: 'fee' },
  { name: 'summary_net', kind: 'amount', label: 'net' },
];
const SHEET_COLUMNS: readonly TableColumn[] = [...SUMMARY_MONEY_COLUMNS, ...ITEM_TABLE_COLUMNS];
const TOTALLED = { totalColumns: SUMMARY_MONEY_COLUMNS.map((c) => c.name) };
const NO_MONEY: TableRow = SUMMARY_MONEY_COLUMNS.map(() => null);

/** An item table row with the Summary's money of its order in front. */
function sheetRow(row: TableRow, r: ReportItemRow | null): TableRow {
  const m = r === null ? null : settledMoney(r);
  return m === null ? [...NO_MONEY, ...row] : [m.gross, m.paid, m.fee, settledNet(r!.direction, m), ...row];
}

/** Mismatches shown in report.html (all of them are in mismatches.csv and the workbook). */
const HTML_MISMATCH_ROWS = 200;

/** What report.html and its chart show of the day's mismatches. */
export interface MismatchDigest {
  readonly columns: readonly TableColumn[];
  count: number;
  /** The first HTML_MISMATCH_ROWS, in report order. */
  readonly preview: TableRow[];
  /** Mismatched orders by code. */
  readonly codes: Map<string, number>;
}

/**
 * reconciliation.xlsx begun in the one pass over the day's orders that writes items.csv and
 * mismatches.csv: its Items and Mismatches sheets are filled from the same rows, so a
 * million-order day is read from the database once rather than once per file. The rest of the
 * workbook is written once the version is known (writeVersionExtras), and the workbook is
 * dropped with the temp directory when no version is written.
 */
export class DayItemSheets {
  readonly workbook: WorkbookFile;
  readonly mismatches: MismatchDigest = { columns: ITEM_TABLE_COLUMNS, count: 0, preview: [], codes: new Map() };
  private readonly items: SheetWriter;
  private readonly mismatchSheet: SheetWriter;
  private readonly codeIndex = ITEM_TABLE_COLUMNS.findIndex((c) => c.name === 'mismatch_codes');

  /** `items`: the day's order count, beforehand (the Items sheet says in its first row when it cannot hold them all). */
  constructor(dir: string, opts: { date: string; timezone: string; items: number }) {
    this.workbook = new WorkbookFile(path.join(dir, 'reconciliation.xlsx'), {
      zone: opts.timezone,
      // A value from the data, not the clock: the same data gives the same bytes.
      created: new Date(`${opts.date}T00:00:00Z`),
      order: WORKBOOK_TABS,
    });
    // Items first: the big sheet streams straight into the zip, Mismatches through a temp file.
    this.items = this.workbook.sheet('Items', SHEET_COLUMNS, { expectedRows: opts.items, fullFile: 'items.csv', ...TOTALLED });
    this.mismatchSheet = this.workbook.sheet('Mismatches', SHEET_COLUMNS, TOTALLED);
  }

  /** One order's row (item table columns) and its source. Returns a promise only when the files are behind. */
  add(row: TableRow, r: ReportItemRow): Promise<void> | undefined {
    const full = sheetRow(row, r);
    const wait = this.items.add(full);
    if (r.verdict !== 'mismatch') return wait;
    const also = this.addMismatch(row, full);
    if (wait && also) return Promise.all([wait, also]).then(() => undefined);
    return wait ?? also;
  }

  /** A mismatch that is no order of the day (UNKNOWN_ORDER: the provider's order, not ours): Mismatches only. */
  addMismatchOnly(row: TableRow): Promise<void> | undefined {
    return this.addMismatch(row, sheetRow(row, null));
  }

  private addMismatch(row: TableRow, full: TableRow): Promise<void> | undefined {
    const m = this.mismatches;
    m.count += 1;
    if (m.preview.length < HTML_MISMATCH_ROWS) m.preview.push(row);
    for (const code of String(row[this.codeIndex] ?? '').split(' ')) if (code !== '') m.codes.set(code, (m.codes.get(code) ?? 0) + 1);
    return this.mismatchSheet.add(full);
  }

  close(): void {
    this.items.close();
    this.mismatchSheet.close();
  }

  abort(): Promise<void> {
    return this.workbook.abort();
  }
}
