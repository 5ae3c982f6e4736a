import fs from 'node:fs/promises';
import { columnLabel, currencyIndex, type CellValue, type Table, type TableColumn, type TableRow } from '../table.ts';
import { currencyDecimals } from './cells.ts';
import { CONTENT_TYPES, ROOT_RELS, coreProperties, workbookRels, workbookXml, type SheetPart } from './package-parts.ts';
import { ScaledSum } from '../../money/scaled-sum.ts';
import { fitsPageWidth, rangeRef, rowXml, sheetHead, sheetTail } from './sheet-xml.ts';
import { BOLD_STYLE, HEADER_STYLE, NOTE_STYLE, NOTICE_STYLE, StyleSheet, TITLE_STYLE } from './styles.ts';
import { CellEncoder, defaultWidth, sheetKind, type SheetKind } from './typed-cell.ts';
import { moneyFirstOrder } from './column-order.ts';
import { ZipFile, type TextEntry } from './zip.ts';
import { columnName } from './xml.ts';

/** Rows a worksheet holds (xlsx and every spreadsheet that reads it). */
export const SHEET_ROW_LIMIT = 1_048_576;
/** Rows kept free below the data for the blank row and the totals rows (one per currency). */
const TOTALS_RESERVE = 32;
/** Characters a header needs beyond its label: padding, and the autofilter's drop-down button over its right end. */
const HEADER_ROOM = 5;

/** A column's width: its own, or by kind, never narrower than its header with the filter button. */
const widthOf = (c: TableColumn): number => Math.max(c.width ?? defaultWidth(sheetKind(c), c.name), columnLabel(c).length + HEADER_ROOM);

/** Characters a value takes on screen: an amount with its thousands separators, anything else as written. */
function shownLength(c: TableColumn, v: CellValue): number {
  if (v === null) return 0;
  const text = String(v);
  if (c.kind !== 'amount' && c.kind !== 'decimal' && c.kind !== 'count') return c.kind === 'datetime' ? 19 : text.length;
  const whole = text.replace(/^-/, '').split('.')[0].length;
  return text.length + Math.floor((whole - 1) / 3);
}

/** Widest a column grows to its longest value (long reasons wrap past this, off to the right). */
const MAX_WIDTH = 60;

/** A small table's column width: its longest value or its header with the filter button, whichever is wider. */
export function fittedWidth(c: TableColumn, values: readonly CellValue[]): number {
  const longest = values.reduce<number>((a, v) => Math.max(a, shownLength(c, v)), 0);
  return Math.min(MAX_WIDTH, Math.max(longest + 2, columnLabel(c).length + HEADER_ROOM, sheetKind(c) === 'date' ? 12 : 0));
}

/** A table with its columns in the workbook's order (money first; see column-order.ts). */
function reordered(t: Table): Table {
  const order = moneyFirstOrder(t.columns);
  return { ...t, columns: order.map((i) => t.columns[i]), rows: t.rows.map((r) => order.map((i) => r[i])) };
}

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
  /** Totals rows per currency (and direction) under the data: default when the sheet has amounts and a currency. */
  totals?: boolean;
  /** Print at this percentage instead of fitting the page width (Table.printScale). */
  printScale?: number;
  /** The amount columns (by name) the totals rows sum; default every amount column. */
  totalColumns?: readonly string[];
}

/**
 * reconciliation.xlsx, its sheets' XML written here and streamed into the zip row by row with
 * backpressure, so memory stays flat at any size and a cell costs a string concatenation.
 * Cells are typed (see CellEncoder); strings are inline (`t="inlineStr"`), so nothing is held
 * for a shared string table.
 *
 * Deterministic: the document's created/modified times are the caller's (a value from the data),
 * and every zip entry carries one fixed timestamp.
 */
export class WorkbookFile {
  private readonly zip: ZipFile;
  private readonly styles = new StyleSheet();
  private readonly cells: CellEncoder;
  private readonly sheets: SheetPart[] = [];
  private readonly open = new Set<SheetWriter>();
  private readonly order: readonly string[];
  private rows = 0;

  /**
   * `order`: the tabs' order by sheet name, when sheets are written in another (names not listed
   * follow, in the order written).
   */
  constructor(
    readonly path: string,
    opts: { zone: string; created: Date; order?: readonly string[] },
  ) {
    this.order = opts.order ?? [];
    this.cells = new CellEncoder(this.styles, opts.zone);
    this.zip = new ZipFile(path);
    this.zip.add('[Content_Types].xml', Buffer.from(CONTENT_TYPES));
    this.zip.add('_rels/.rels', Buffer.from(ROOT_RELS));
    this.zip.add('docProps/core.xml', Buffer.from(coreProperties('payrecon', opts.created)));
  }

  /** Amount cells written as text so far (more significant digits than a spreadsheet number holds). */
  get exactTextCells(): number {
    return this.cells.exactTexts;
  }

  private nextPart(name: string): { part: string; index: number } {
    if (this.sheets.some((s) => s.name === name)) throw new Error(`sheet "${name}" exists already`);
    const index = this.sheets.length;
    const part = `worksheets/sheet${index + 1}.xml`;
    this.sheets.push({ name, part, autoFilter: null });
    return { part, index };
  }

  /**
   * Starts a data sheet: header row frozen, autofilter, widths, totals per currency on close.
   * Sheets may be written at the same time (one pass over the day's orders fills Items and
   * Mismatches): the first open one streams into the zip, the others go through a temp file
   * beside the workbook and join it when they end.
   */
  sheet(name: string, columns: readonly TableColumn[], opts: SheetOptions = {}): SheetWriter {
    const { part, index } = this.nextPart(name);
    const entry =
      this.open.size === 0 ? this.zip.text(`xl/${part}`) : this.zip.spooled(`xl/${part}`, `${this.path}.sheet${index + 1}.part`);
    const writer = new SheetWriter(name, columns, opts, this.cells, entry, (rows, autoFilter, headerRow, printArea) => {
      this.rows += rows;
      this.sheets[index] = { ...this.sheets[index], autoFilter, headerRow, printArea };
      this.open.delete(writer);
    });
    this.open.add(writer);
    return writer;
  }

  /**
   * A sheet of one small table: intro lines, title, header, rows, notes. One table per sheet, so
   * each column is sized, filtered and printed for its own values (nine tables sharing columns
   * put `gross` in a 60-wide column and printed values under the next table's headers).
   */
  tableSheet(name: string, table: Table, intro: readonly string[] = []): void {
    const { part, index } = this.nextPart(name);
    const t = reordered(table);
    const widths = t.columns.map((c, i) =>
      fittedWidth(
        c,
        t.rows.map((r) => r[i]),
      ),
    );
    const headerRow = intro.length + (intro.length ? 1 : 0) + 2;
    // A table that says how it prints (the Journal: readable on paper) is never shrunk to the page width.
    const fit = t.printScale === undefined && fitsPageWidth(widths);
    const lines: string[] = [sheetHead(widths, headerRow, fit)];
    let row = 0;
    const add = (cells: (string | null)[]) => lines.push(rowXml(++row, cells));
    // A note spans the table's width, wrapped, so it neither widens the printed page nor runs off to the right.
    const span = widths.reduce((a, b) => a + b, 0);
    const merged: string[] = [];
    const note = (text: string) => {
      lines.push(rowXml(++row, [this.cells.styledText(text, NOTE_STYLE)], 15 * Math.ceil((text.length * 1.1) / span)));
      if (widths.length > 1) merged.push(rangeRef(row, row, widths.length));
    };
    for (const text of intro) note(text);
    if (intro.length) row += 1;
    add([this.cells.styledText(t.title, TITLE_STYLE)]);
    add(t.columns.map((c) => this.cells.styledText(columnLabel(c), HEADER_STYLE)));
    const cur = currencyIndex(t.columns);
    const dir = t.columns.findIndex((c) => c.name === 'direction');
    const kinds = t.columns.map(sheetKind);
    for (const r of t.rows) {
      const currency = cur >= 0 ? (r[cur] as string | null) : null;
      // A totals row (its first cell, or its direction, says "total") is bold, as in the data sheets.
      const bold = [r[0], dir >= 0 ? r[dir] : null].some((v) => typeof v === 'string' && v.toLowerCase().startsWith('total'));
      add(
        t.columns.map((c, i) =>
          bold ? this.cells.boldCell(kinds[i], r[i], currency, c.decimals) : this.cells.cell(kinds[i], r[i], currency, c.decimals),
        ),
      );
      this.rows += 1;
    }
    const autoFilter = t.rows.length > 0 ? rangeRef(headerRow, headerRow + t.rows.length, t.columns.length) : null;
    for (const text of t.notes ?? []) note(text);
    lines.push(sheetTail(autoFilter, fit, merged, t.printScale));
    this.sheets[index] = { ...this.sheets[index], autoFilter, headerRow, printArea: rangeRef(1, row, t.columns.length) };
    this.zip.add(`xl/${part}`, Buffer.from(lines.join('')));
  }

  /** Finishes the file: styles and the workbook's sheet list last, once every sheet is written. */
  async close(): Promise<WorkbookResult> {
    for (const s of this.open) throw new Error(`sheet "${s.name}" is still open`);
    await this.zip.settle();
    const rank = (s: SheetPart) => {
      const i = this.order.indexOf(s.name);
      return i < 0 ? this.order.length : i;
    };
    const tabs = this.sheets
      .map((s, i) => ({ s, i }))
      .sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i)
      .map((x) => x.s);
    this.zip.add('xl/styles.xml', Buffer.from(this.styles.xml()));
    this.zip.add('xl/workbook.xml', Buffer.from(workbookXml(tabs)));
    this.zip.add('xl/_rels/workbook.xml.rels', Buffer.from(workbookRels(tabs)));
    const { bytes, sha256 } = await this.zip.close();
    return { rows: this.rows, bytes, sha256 };
  }

  /** Stops after an error elsewhere; the caller removes the temp directory. */
  async abort(): Promise<void> {
    await this.zip.abort();
    await fs.rm(this.path, { force: true }).catch(() => undefined);
  }
}

/**
 * The formula of a totals cell: the column's values of the rows the autofilter shows (SUBTOTAL
 * over each row, by OFFSET) that match every criterion. Understood by Excel and LibreOffice alike.
 */
function subtotalRange(first: number, last: number) {
  return (column: number, criteria: readonly { column: number; value: string }[]): string => {
    const col = (i: number) => `$${columnName(i)}$${first}:$${columnName(i)}$${last}`;
    const top = `$${columnName(column)}$${first}`;
    const matches = criteria.map((c) => `--(${col(c.column)}="${c.value.replaceAll('"', '""')}")`);
    return `SUMPRODUCT(SUBTOTAL(109,OFFSET(${top},ROW(${col(column)})-ROW(${top}),0)),${matches.join(',')})`;
  };
}

/** One data sheet being written; rows go out as they are added. */
export class SheetWriter {
  private readonly headerRow: number;
  private readonly capacity: number;
  private readonly cur: number;
  private readonly dir: number;
  private readonly kinds: SheetKind[];
  private readonly decimals: (number | undefined)[];
  /** Source index of each written column (money first; see column-order.ts). */
  private readonly order: number[];
  private readonly columns: readonly TableColumn[];
  private readonly totals: Map<string, ScaledSum[]> | null;
  private readonly summed: number[];
  private readonly body: (string | null)[];
  private readonly fit: boolean;
  private readonly printScale: number | undefined;
  private written = 0;
  private dropped = 0;
  private closed = false;

  constructor(
    readonly name: string,
    sourceColumns: readonly TableColumn[],
    opts: SheetOptions,
    private readonly cells: CellEncoder,
    private readonly out: TextEntry,
    private readonly onClose: (rows: number, autoFilter: string | null, headerRow: number, printArea: string) => void,
  ) {
    this.order = moneyFirstOrder(sourceColumns);
    const columns = this.order.map((i) => sourceColumns[i]);
    this.columns = columns;
    const limit = opts.rowLimit ?? SHEET_ROW_LIMIT;
    const overflow = opts.expectedRows !== undefined && opts.expectedRows > limit - 1 - TOTALS_RESERVE;
    this.headerRow = overflow ? 2 : 1;
    this.capacity = limit - this.headerRow - TOTALS_RESERVE;
    this.cur = currencyIndex(columns);
    this.dir = columns.findIndex((c) => c.name === 'direction');
    this.kinds = columns.map(sheetKind);
    this.decimals = columns.map((c) => c.decimals);
    this.body = new Array<string | null>(columns.length);
    this.summed = columns.flatMap((c, i) =>
      c.kind === 'amount' && (opts.totalColumns === undefined || opts.totalColumns.includes(c.name)) ? [i] : [],
    );
    this.totals = (opts.totals ?? true) && this.cur >= 0 && this.summed.length > 0 ? new Map() : null;

    const widths = columns.map(widthOf);
    this.printScale = opts.printScale;
    this.fit = opts.printScale === undefined && fitsPageWidth(widths);
    let head = sheetHead(widths, this.headerRow, this.fit);
    if (overflow) {
      const notice =
        `This sheet holds the first ${this.capacity.toLocaleString('en-US')} of ${opts.expectedRows!.toLocaleString('en-US')} rows: ` +
        `a sheet holds at most ${limit.toLocaleString('en-US')}. Every row is in ${opts.fullFile ?? 'the CSV file of the same name'}.`;
      head += rowXml(1, [cells.styledText(notice, NOTICE_STYLE)]);
    }
    head += rowXml(
      this.headerRow,
      columns.map((c) => cells.styledText(columnLabel(c), HEADER_STYLE)),
    );
    void this.out.write(head);
  }

  /** Rows added beyond what the sheet holds (they are in the full file only). */
  get droppedRows(): number {
    return this.dropped;
  }

  /**
   * Adds a row. Returns a promise only when the file is behind (await it before adding more):
   * a million rows without a million awaits.
   */
  add(row: TableRow): Promise<void> | undefined {
    if (this.closed) throw new Error(`sheet "${this.name}" is closed`);
    if (this.written >= this.capacity) {
      this.dropped += 1;
      return undefined;
    }
    const values = this.order.map((i) => row[i]);
    const currency = this.cur >= 0 ? (values[this.cur] as string | null) : null;
    for (let i = 0; i < this.kinds.length; i++) this.body[i] = this.cells.cell(this.kinds[i], values[i], currency, this.decimals[i]);
    this.written += 1;
    if (this.totals && currency !== null) this.sum(currency, this.dir >= 0 ? (values[this.dir] as string | null) : null, values);
    return this.out.write(rowXml(this.headerRow + this.written, this.body));
  }

  private sum(currency: string, direction: string | null, values: TableRow): void {
    const key = direction === null ? currency : `${currency}\u0000${direction}`;
    let sums = this.totals!.get(key);
    if (!sums) {
      const scale = currencyDecimals(currency);
      sums = this.summed.map(() => new ScaledSum(scale));
      this.totals!.set(key, sums);
    }
    for (let k = 0; k < this.summed.length; k++) {
      const v = values[this.summed[k]];
      if (v !== null && v !== '') sums[k].add(String(v));
    }
  }

  /**
   * Totals rows (after one blank row), one per currency and direction, the autofilter over the
   * data, and the sheet is ended. Each total is a formula that sums the rows of its currency and
   * direction the autofilter shows (SUBTOTAL 109 skips filtered rows), with its exact value cached
   * so a reader that does not recalculate shows it too.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const lastData = this.headerRow + this.written;
    let tail = '';
    let row = lastData;
    if (this.totals && this.totals.size > 0) {
      const label = this.columns.findIndex((c, i) => i !== this.cur && i !== this.dir && c.kind !== 'amount');
      const range = subtotalRange(this.headerRow + 1, lastData);
      row += 1;
      for (const key of [...this.totals.keys()].sort()) {
        const [currency, direction] = key.split('\u0000') as [string, string | undefined];
        const sums = this.totals.get(key)!;
        const body = new Array<string | null>(this.columns.length).fill(null);
        if (label >= 0) body[label] = this.cells.styledText('total', BOLD_STYLE);
        body[this.cur] = this.cells.styledText(currency, BOLD_STYLE);
        const criteria = [{ column: this.cur, value: currency }];
        if (direction !== undefined) {
          body[this.dir] = this.cells.styledText(direction, BOLD_STYLE);
          criteria.push({ column: this.dir, value: direction });
        }
        this.summed.forEach((col, k) => {
          const total = sums[k].toString();
          body[col] = this.cells.formulaCell(range(col, criteria), total, currency) ?? this.cells.boldCell('amount', total, currency);
        });
        tail += rowXml(++row, body);
      }
    }
    const autoFilter = this.written > 0 ? rangeRef(this.headerRow, lastData, this.columns.length) : null;
    this.out.end(tail + sheetTail(autoFilter, this.fit, [], this.printScale));
    this.onClose(this.written, autoFilter, this.headerRow, rangeRef(1, row, this.columns.length));
  }
}
