import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { columnLabel, currencyIndex, type Table, type TableColumn, type TableRow } from '../table.ts';
import { currencyDecimals, wallClock } from './cells.ts';
import { ScaledSum } from './scaled-sum.ts';
import { amountStyle, BOLD_STYLE, HEADER_STYLE, NOTE_STYLE, TITLE_STYLE } from './styles.ts';
import { defaultWidth, typedCell } from './typed-cell.ts';
import { fixZipTimes } from './zip-times.ts';

/** Rows a worksheet holds (xlsx and every spreadsheet that reads it). */
export const SHEET_ROW_LIMIT = 1_048_576;
/** Rows kept free below the data for the blank row and the totals rows (one per currency). */
const TOTALS_RESERVE = 32;
/**
 * zlib level of the zip entries: 1 costs about half the CPU of the default 6 for a file about a
 * fifth larger, which keeps a million-row workbook within the report's time budget.
 */
const ZIP_LEVEL = 1;

export interface WorkbookResult {
  /** Data rows over all sheets (headers, titles and totals rows not counted). */
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

export interface SheetOptions {
  /** Rows the caller will add (known beforehand): above the sheet's capacity, its first row says so. */
  expectedRows?: number;
  /** The file holding every row, named by that notice (`items.csv`). */
  fullFile?: string;
  /** Rows one sheet holds; SHEET_ROW_LIMIT unless a test needs a small one. */
  rowLimit?: number;
  /** Totals rows per currency under the data: default when the sheet has amounts and a currency. */
  totals?: boolean;
}

/**
 * reconciliation.xlsx through exceljs's streaming writer: each row is written out as it is
 * added, so memory stays flat at any size. Sheets are written one after another (the zip holds
 * one stream at a time; a second open sheet would be buffered whole), in tab order.
 *
 * Deterministic: the document's created/modified times are the caller's (a value from the data),
 * and the zip entries' timestamps are fixed after writing (fixZipTimes).
 */
export class WorkbookFile {
  private readonly wb: ExcelJS.stream.xlsx.WorkbookWriter;
  private readonly out: ReturnType<typeof createWriteStream>;
  private readonly wall: (ms: number) => Date;
  private open: SheetWriter | null = null;
  private rows = 0;
  private exactTexts = 0;

  constructor(
    readonly path: string,
    opts: { zone: string; created: Date },
  ) {
    this.wall = wallClock(opts.zone);
    // flush: fsync before close, as the CSVs, so a renamed version directory is on disk.
    this.out = createWriteStream(path, { flags: 'wx', flush: true });
    this.wb = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: this.out,
      useStyles: true,
      useSharedStrings: false,
      zip: { zlib: { level: ZIP_LEVEL } },
    });
    this.wb.creator = 'payrecon';
    this.wb.lastModifiedBy = 'payrecon';
    this.wb.created = opts.created;
    this.wb.modified = opts.created;
  }

  /** Amount cells written as text so far (more significant digits than a spreadsheet number holds). */
  get exactTextCells(): number {
    return this.exactTexts;
  }

  /** Starts a data sheet: header row frozen, autofilter, widths, totals per currency on close. */
  sheet(name: string, columns: readonly TableColumn[], opts: SheetOptions = {}): SheetWriter {
    if (this.open) throw new Error(`sheet "${this.open.name}" is still open; close it before starting "${name}"`);
    const writer = new SheetWriter(this.wb, name, columns, opts, this.wall, (rows, exact) => {
      this.rows += rows;
      this.exactTexts += exact;
      this.open = null;
    });
    this.open = writer;
    return writer;
  }

  /** A sheet of several small tables one under another (the Summary): title, header, rows, notes. */
  tablesSheet(name: string, tables: readonly Table[], intro: readonly string[] = []): void {
    if (this.open) throw new Error(`sheet "${this.open.name}" is still open; close it before starting "${name}"`);
    const ws = this.wb.addWorksheet(name);
    const widths: number[] = [];
    for (const t of tables)
      t.columns.forEach((c, i) => {
        widths[i] = Math.max(widths[i] ?? 0, c.width ?? defaultWidth(c.kind, c.name), columnLabel(c).length + 2);
      });
    ws.columns = widths.map((width) => ({ width }));
    const line = (text: string, style: Partial<ExcelJS.Style>) => {
      const row = ws.addRow([text]);
      row.getCell(1).style = style;
      row.commit();
    };
    for (const text of intro) line(text, NOTE_STYLE);
    if (intro.length) ws.addRow([]).commit();
    for (const t of tables) {
      line(t.title, TITLE_STYLE);
      const header = ws.addRow(t.columns.map(columnLabel));
      header.eachCell((c) => (c.style = HEADER_STYLE));
      header.commit();
      const cur = currencyIndex(t.columns);
      for (const r of t.rows) {
        const row = ws.addRow([]);
        const currency = cur >= 0 ? (r[cur] as string | null) : null;
        // A totals row (its first cell says "total") is bold, as in the data sheets.
        const bold = typeof r[0] === 'string' && r[0].toLowerCase().startsWith('total');
        t.columns.forEach((c, i) => {
          const cell = typedCell(c.kind, r[i], currency, this.wall);
          if (cell.value === null) return;
          const target = row.getCell(i + 1);
          target.value = cell.value;
          if (cell.exactText) this.exactTexts += 1;
          if (bold) target.style = { ...(cell.style ?? {}), font: { bold: true } };
          else if (cell.style) target.style = cell.style;
        });
        row.commit();
        this.rows += 1;
      }
      for (const note of t.notes ?? []) line(note, NOTE_STYLE);
      ws.addRow([]).commit();
    }
    ws.commit();
  }

  /** Finishes the file, fixes its zip timestamps, and hashes it. */
  async close(): Promise<WorkbookResult> {
    if (this.open) throw new Error(`sheet "${this.open.name}" is still open`);
    await this.wb.commit();
    await fixZipTimes(this.path);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of createReadStream(this.path)) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    return { rows: this.rows, bytes, sha256: hash.digest('hex') };
  }

  /** Stops after an error elsewhere; the caller removes the temp directory. */
  async abort(): Promise<void> {
    this.out.destroy();
    await fs.rm(this.path, { force: true }).catch(() => undefined);
  }
}

/** One data sheet being written; rows are committed (written out) as they are added. */
export class SheetWriter {
  private readonly ws: ExcelJS.Worksheet;
  private readonly headerRow: number;
  private readonly capacity: number;
  private readonly cur: number;
  private readonly totals: Map<string, ScaledSum[]> | null;
  private readonly summed: number[];
  private written = 0;
  private dropped = 0;
  private exact = 0;
  private closed = false;

  constructor(
    wb: ExcelJS.stream.xlsx.WorkbookWriter,
    readonly name: string,
    private readonly columns: readonly TableColumn[],
    private readonly opts: SheetOptions,
    private readonly wall: (ms: number) => Date,
    private readonly onClose: (rows: number, exactTexts: number) => void,
  ) {
    const limit = opts.rowLimit ?? SHEET_ROW_LIMIT;
    const overflow = opts.expectedRows !== undefined && opts.expectedRows > limit - 1 - TOTALS_RESERVE;
    this.headerRow = overflow ? 2 : 1;
    this.capacity = limit - this.headerRow - TOTALS_RESERVE;
    this.cur = currencyIndex(columns);
    this.summed = columns.flatMap((c, i) => (c.kind === 'amount' ? [i] : []));
    this.totals = (opts.totals ?? true) && this.cur >= 0 && this.summed.length > 0 ? new Map() : null;

    this.ws = wb.addWorksheet(name, { views: [{ state: 'frozen', xSplit: 0, ySplit: this.headerRow }] });
    this.ws.columns = columns.map((c) => ({ width: c.width ?? Math.max(defaultWidth(c.kind, c.name), columnLabel(c).length + 2) }));
    if (overflow) {
      const notice = this.ws.addRow([
        `This sheet holds the first ${this.capacity.toLocaleString('en-US')} of ${opts.expectedRows!.toLocaleString('en-US')} rows: ` +
          `a sheet holds at most ${limit.toLocaleString('en-US')}. Every row is in ${opts.fullFile ?? 'the CSV file of the same name'}.`,
      ]);
      notice.getCell(1).style = { font: { bold: true, color: { argb: 'FFB00020' } } };
      notice.commit();
    }
    const header = this.ws.addRow(columns.map(columnLabel));
    header.eachCell((c) => (c.style = HEADER_STYLE));
    header.commit();
  }

  /** Rows added beyond what the sheet holds (they are in the full file only). */
  get droppedRows(): number {
    return this.dropped;
  }

  add(values: TableRow): void {
    if (this.closed) throw new Error(`sheet "${this.name}" is closed`);
    if (this.written >= this.capacity) {
      this.dropped += 1;
      return;
    }
    const currency = this.cur >= 0 ? (values[this.cur] as string | null) : null;
    const row = this.ws.addRow([]);
    for (let i = 0; i < this.columns.length; i++) {
      const cell = typedCell(this.columns[i].kind, values[i], currency, this.wall);
      if (cell.value === null) continue;
      const target = row.getCell(i + 1);
      target.value = cell.value;
      if (cell.style) target.style = cell.style;
      if (cell.exactText) this.exact += 1;
    }
    row.commit();
    this.written += 1;
    if (this.totals && currency !== null) {
      let sums = this.totals.get(currency);
      if (!sums) {
        const scale = currencyDecimals(currency);
        sums = this.summed.map(() => new ScaledSum(scale));
        this.totals.set(currency, sums);
      }
      for (let k = 0; k < this.summed.length; k++) {
        const v = values[this.summed[k]];
        if (v !== null && v !== '') sums[k].add(String(v));
      }
    }
  }

  /** Totals rows, autofilter over the data, and the sheet is written out. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const lastData = this.headerRow + this.written;
    if (this.totals && this.totals.size > 0) {
      this.ws.addRow([]).commit();
      const label = this.columns.findIndex((c, i) => i !== this.cur && c.kind !== 'amount');
      for (const currency of [...this.totals.keys()].sort()) {
        const sums = this.totals.get(currency)!;
        const row = this.ws.addRow([]);
        if (label >= 0) {
          row.getCell(label + 1).value = 'total';
          row.getCell(label + 1).style = BOLD_STYLE;
        }
        row.getCell(this.cur + 1).value = currency;
        row.getCell(this.cur + 1).style = BOLD_STYLE;
        this.summed.forEach((col, k) => {
          const cell = typedCell('amount', sums[k].toString(), currency, this.wall);
          const target = row.getCell(col + 1);
          target.value = cell.value;
          target.style = cell.exactText
            ? { ...cell.style!, font: { bold: true, italic: true } }
            : amountStyle(currencyDecimals(currency), true);
          if (cell.exactText) this.exact += 1;
        });
        row.commit();
      }
    }
    if (this.written > 0) {
      this.ws.autoFilter = { from: { row: this.headerRow, column: 1 }, to: { row: lastData, column: this.columns.length } };
    }
    this.ws.commit();
    this.onClose(this.written, this.exact);
  }
}
