import fs from 'node:fs/promises';
import { columnLabel, currencyIndex, type Table, type TableColumn, type TableRow } from '../table.ts';
import { currencyDecimals } from './cells.ts';
import { CONTENT_TYPES, ROOT_RELS, coreProperties, workbookRels, workbookXml, type SheetPart } from './package-parts.ts';
import { ScaledSum } from '../../money/scaled-sum.ts';
import { rangeRef, rowXml, sheetHead, sheetTail } from './sheet-xml.ts';
import { BOLD_STYLE, HEADER_STYLE, NOTE_STYLE, NOTICE_STYLE, StyleSheet, TITLE_STYLE } from './styles.ts';
import { CellEncoder, defaultWidth, sheetKind, type SheetKind } from './typed-cell.ts';
import { moneyFirstOrder } from './column-order.ts';
import { ZipFile, type TextEntry } from './zip.ts';

/** Rows a worksheet holds (xlsx and every spreadsheet that reads it). */
export const SHEET_ROW_LIMIT = 1_048_576;
/** Rows kept free below the data for the blank row and the totals rows (one per currency). */
const TOTALS_RESERVE = 32;
/** Characters a header needs beyond its label: padding, and the autofilter's drop-down button over its right end. */
const HEADER_ROOM = 5;

/** A column's width: its own, or by kind, never narrower than its header with the filter button. */
const widthOf = (c: TableColumn): number => Math.max(c.width ?? defaultWidth(sheetKind(c), c.name), columnLabel(c).length + HEADER_ROOM);

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
  /** Totals rows per currency under the data: default when the sheet has amounts and a currency. */
  totals?: boolean;
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
    const writer = new SheetWriter(name, columns, opts, this.cells, entry, (rows, autoFilter, headerRow) => {
      this.rows += rows;
      this.sheets[index] = { ...this.sheets[index], autoFilter, headerRow };
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
    const widths = t.columns.map(widthOf);
    const headerRow = intro.length + (intro.length ? 1 : 0) + 2;
    const lines: string[] = [sheetHead(widths, headerRow)];
    let row = 0;
    const add = (cells: (string | null)[]) => lines.push(rowXml(++row, cells));
    for (const text of intro) add([this.cells.styledText(text, NOTE_STYLE)]);
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
    for (const note of t.notes ?? []) add([this.cells.styledText(note, NOTE_STYLE)]);
    lines.push(sheetTail(autoFilter));
    this.sheets[index] = { ...this.sheets[index], autoFilter, headerRow };
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

/** One data sheet being written; rows go out as they are added. */
export class SheetWriter {
  private readonly headerRow: number;
  private readonly capacity: number;
  private readonly cur: number;
  private readonly kinds: SheetKind[];
  private readonly decimals: (number | undefined)[];
  /** Source index of each written column (money first; see column-order.ts). */
  private readonly order: number[];
  private readonly columns: readonly TableColumn[];
  private readonly totals: Map<string, ScaledSum[]> | null;
  private readonly summed: number[];
  private readonly body: (string | null)[];
  private written = 0;
  private dropped = 0;
  private closed = false;

  constructor(
    readonly name: string,
    sourceColumns: readonly TableColumn[],
    opts: SheetOptions,
    private readonly cells: CellEncoder,
    private readonly out: TextEntry,
    private readonly onClose: (rows: number, autoFilter: string | null, headerRow: number) => void,
  ) {
    this.order = moneyFirstOrder(sourceColumns);
    const columns = this.order.map((i) => sourceColumns[i]);
    this.columns = columns;
    const limit = opts.rowLimit ?? SHEET_ROW_LIMIT;
    const overflow = opts.expectedRows !== undefined && opts.expectedRows > limit - 1 - TOTALS_RESERVE;
    this.headerRow = overflow ? 2 : 1;
    this.capacity = limit - this.headerRow - TOTALS_RESERVE;
    this.cur = currencyIndex(columns);
    this.kinds = columns.map(sheetKind);
    this.decimals = columns.map((c) => c.decimals);
    this.body = new Array<string | null>(columns.length);
    this.summed = columns.flatMap((c, i) => (c.kind === 'amount' ? [i] : []));
    this.totals = (opts.totals ?? true) && this.cur >= 0 && this.summed.length > 0 ? new Map() : null;

    const widths = columns.map(widthOf);
    let head = sheetHead(widths, this.headerRow);
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
    if (this.totals && currency !== null) this.sum(currency, values);
    return this.out.write(rowXml(this.headerRow + this.written, this.body));
  }

  private sum(currency: string, values: TableRow): void {
    let sums = this.totals!.get(currency);
    if (!sums) {
      const scale = currencyDecimals(currency);
      sums = this.summed.map(() => new ScaledSum(scale));
      this.totals!.set(currency, sums);
    }
    for (let k = 0; k < this.summed.length; k++) {
      const v = values[this.summed[k]];
      if (v !== null && v !== '') sums[k].add(String(v));
    }
  }

  /** Totals rows (after one blank row), the autofilter over the data, and the sheet is ended. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const lastData = this.headerRow + this.written;
    let tail = '';
    if (this.totals && this.totals.size > 0) {
      const label = this.columns.findIndex((c, i) => i !== this.cur && c.kind !== 'amount');
      let row = lastData + 1;
      for (const currency of [...this.totals.keys()].sort()) {
        const sums = this.totals.get(currency)!;
        const body = new Array<string | null>(this.columns.length).fill(null);
        if (label >= 0) body[label] = this.cells.styledText('total', BOLD_STYLE);
        body[this.cur] = this.cells.styledText(currency, BOLD_STYLE);
        this.summed.forEach((col, k) => (body[col] = this.cells.boldCell('amount', sums[k].toString(), currency)));
        tail += rowXml(++row, body);
      }
    }
    const autoFilter = this.written > 0 ? rangeRef(this.headerRow, lastData, this.columns.length) : null;
    this.out.end(tail + sheetTail(autoFilter));
    this.onClose(this.written, autoFilter, this.headerRow);
  }
}
