import type { CellValue, ColumnKind, TableColumn } from '../table.ts';
import { amountDecimals, currencyDecimals, holdsExactly, wallClockSerial } from './cells.ts';
import {
  amountStyle,
  COUNT_STYLE,
  DATE_STYLE,
  DATETIME_STYLE,
  EXACT_TEXT_STYLE,
  TEXT_STYLE,
  type CellStyle,
  type StyleSheet,
} from './styles.ts';
import { inlineString, xmlText } from './xml.ts';

/** A column's kind in the workbook: a business date (YYYY-MM-DD text elsewhere) is a date cell here. */
export type SheetKind = ColumnKind | 'date';

export const sheetKind = (c: TableColumn): SheetKind =>
  c.kind === 'text' && (c.name === 'business_date' || c.name === 'date') ? 'date' : c.kind;

/** "2026-11-25" as a spreadsheet date serial (days since 1899-12-30); null when it is no such date. */
function dateSerial(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(ms) ? null : ms / 86_400_000 + 25_569;
}

/**
 * Raw table values as SpreadsheetML cells: text stays text ("044" keeps its zero), amounts
 * become numbers with the currency's format (more decimals when the amount has more: "0.005"
 * INR shows as 0.005, never 0.01) unless the number itself would round them (then exact text,
 * marked), times become date-times in the zone. Each method returns what follows `<c` and the
 * cell reference: the style, the type and the value.
 */
export class CellEncoder {
  /** Amount cells written as text so far (more significant digits than a spreadsheet number holds). */
  exactTexts = 0;
  private readonly serial: (ms: number) => number;
  private readonly text: string;
  private readonly count: string;
  private readonly datetime: string;
  private readonly date: string;
  private readonly exact: string;
  private readonly amounts = new Map<string | null, { decimals: number; prefix: string }>();

  constructor(
    private readonly styles: StyleSheet,
    zone: string,
  ) {
    this.serial = wallClockSerial(zone);
    this.text = ` s="${styles.id(TEXT_STYLE)}" t="inlineStr">`;
    this.count = ` s="${styles.id(COUNT_STYLE)}"><v>`;
    this.datetime = ` s="${styles.id(DATETIME_STYLE)}"><v>`;
    this.date = ` s="${styles.id(DATE_STYLE)}"><v>`;
    this.exact = ` s="${styles.id(EXACT_TEXT_STYLE)}" t="inlineStr">`;
  }

  /**
   * A cell of the column's kind; null for an empty value (no cell is written). `decimals`: a
   * decimal column's fixed decimals (USDT: 6), shown with them and thousands separators.
   */
  cell(kind: SheetKind, raw: CellValue, currency: string | null, decimals?: number): string | null {
    if (raw === null || raw === '') return null;
    switch (kind) {
      case 'date': {
        const serial = dateSerial(String(raw));
        return serial === null ? `${this.text}${inlineString(String(raw))}</c>` : `${this.date}${serial}</v></c>`;
      }
      case 'text':
        return `${this.text}${inlineString(String(raw))}</c>`;
      case 'count': {
        const n = Number(raw);
        return Number.isFinite(n) ? `${this.count}${n}</v></c>` : `${this.text}${inlineString(String(raw))}</c>`;
      }
      case 'datetime':
        return `${this.datetime}${this.serial(Number(raw))}</v></c>`;
      case 'amount':
      case 'decimal': {
        const text = String(raw);
        if (!holdsExactly(text)) {
          this.exactTexts += 1;
          return `${this.exact}${inlineString(text)}</c>`;
        }
        // Decimal text is a valid xsd:double as it is: no float round trip.
        if (kind === 'decimal')
          return decimals === undefined ? `><v>${text}</v></c>` : ` s="${this.styles.id(amountStyle(decimals))}"><v>${text}</v></c>`;
        const format = this.amountFormat(currency);
        // Nearly every amount has no more decimals written than its currency: no scan, no look-up.
        const point = text.indexOf('.');
        if (point === -1 || text.length - point - 1 <= format.decimals) return `${format.prefix}${text}</v></c>`;
        const own = amountDecimals(text, currency);
        return own === format.decimals ? `${format.prefix}${text}</v></c>` : ` s="${this.styles.id(amountStyle(own))}"><v>${text}</v></c>`;
      }
    }
  }

  /** The currency's decimals and the start of its amount cells, worked out once per currency. */
  private amountFormat(currency: string | null): { decimals: number; prefix: string } {
    let format = this.amounts.get(currency);
    if (format === undefined) {
      const decimals = currencyDecimals(currency);
      format = { decimals, prefix: ` s="${this.styles.id(amountStyle(decimals))}"><v>` };
      this.amounts.set(currency, format);
    }
    return format;
  }

  /** The same cell in bold (totals rows): the kind's look plus bold. */
  boldCell(kind: SheetKind, raw: CellValue, currency: string | null, decimals?: number): string | null {
    if (raw === null || raw === '') return null;
    const style = (s: CellStyle) => ` s="${this.styles.id({ ...s, bold: true })}"`;
    switch (kind) {
      case 'date': {
        const serial = dateSerial(String(raw));
        return serial === null
          ? `${style(TEXT_STYLE)} t="inlineStr">${inlineString(String(raw))}</c>`
          : `${style(DATE_STYLE)}><v>${serial}</v></c>`;
      }
      case 'text':
        return `${style(TEXT_STYLE)} t="inlineStr">${inlineString(String(raw))}</c>`;
      case 'count': {
        const n = Number(raw);
        return Number.isFinite(n)
          ? `${style(COUNT_STYLE)}><v>${n}</v></c>`
          : `${style(TEXT_STYLE)} t="inlineStr">${inlineString(String(raw))}</c>`;
      }
      case 'datetime':
        return `${style(DATETIME_STYLE)}><v>${this.serial(Number(raw))}</v></c>`;
      case 'amount':
      case 'decimal': {
        const text = String(raw);
        if (!holdsExactly(text)) {
          this.exactTexts += 1;
          return `${style(EXACT_TEXT_STYLE)} t="inlineStr">${inlineString(text)}</c>`;
        }
        if (kind === 'amount') return `${style(amountStyle(amountDecimals(text, currency)))}><v>${text}</v></c>`;
        return decimals === undefined ? `${style({})}><v>${text}</v></c>` : `${style(amountStyle(decimals))}><v>${text}</v></c>`;
      }
    }
  }

  /**
   * A bold amount computed by a formula, its value cached (`total`, exact decimal text); null when
   * the value has more digits than a spreadsheet number holds (the caller writes it as text).
   */
  formulaCell(formula: string, total: string, currency: string | null): string | null {
    if (!holdsExactly(total)) return null;
    const style = this.styles.id({ ...amountStyle(amountDecimals(total, currency)), bold: true });
    return ` s="${style}"><f>${xmlText(formula)}</f><v>${total}</v></c>`;
  }

  /** A text cell in a given look (titles, notes, headers). */
  styledText(text: string, style: CellStyle): string {
    return ` s="${this.styles.id(style)}" t="inlineStr">${inlineString(text)}</c>`;
  }
}

/** Column width in characters by kind, when the column names none. */
export function defaultWidth(kind: SheetKind, name: string): number {
  if (name.endsWith('_ref')) return 38;
  if (kind === 'date') return 12;
  if (name === 'reason' || name === 'note') return 60;
  switch (kind) {
    case 'text':
      return Math.max(12, name.length + 2);
    case 'amount':
      return 18;
    case 'count':
      return Math.max(9, name.length + 2);
    case 'datetime':
      return 20;
    case 'decimal':
      return 14;
  }
}
