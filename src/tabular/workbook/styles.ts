import { amountFormat, COUNT_FORMAT, DATETIME_FORMAT } from './cells.ts';
import { MAIN_NS, XML_DECLARATION, xmlAttr } from './xml.ts';

/** How a cell looks: what the workbook's sheets use, nothing more. Colours are ARGB hex. */
export interface CellStyle {
  readonly numFmt?: string;
  readonly bold?: boolean;
  readonly italic?: boolean;
  readonly size?: number;
  readonly color?: string;
  readonly fill?: string;
  readonly bottomBorder?: string;
  readonly alignRight?: boolean;
  /** Text wrapped within the cell (a note across the table's merged width). */
  readonly wrap?: boolean;
}

export const amountStyle = (decimals: number, bold = false): CellStyle => ({ numFmt: amountFormat(decimals), bold });
export const COUNT_STYLE: CellStyle = { numFmt: COUNT_FORMAT };
export const DATETIME_STYLE: CellStyle = { numFmt: DATETIME_FORMAT };
export const DATE_STYLE: CellStyle = { numFmt: 'yyyy-mm-dd' };
export const TEXT_STYLE: CellStyle = { numFmt: '@' };

/** An amount kept as text because a spreadsheet number would round it: right-aligned, shaded, italic. */
export const EXACT_TEXT_STYLE: CellStyle = { numFmt: '@', alignRight: true, italic: true, fill: 'FFFCE4C4' };

export const HEADER_STYLE: CellStyle = { bold: true, fill: 'FFE8ECF2', bottomBorder: 'FF8A94A6' };
export const BOLD_STYLE: CellStyle = { bold: true };
export const TITLE_STYLE: CellStyle = { bold: true, size: 13 };
export const NOTE_STYLE: CellStyle = { italic: true, color: 'FF555555', wrap: true };
export const NOTICE_STYLE: CellStyle = { bold: true, color: 'FFB00020' };

/** Formats every spreadsheet knows by number (ECMA-376 §18.8.30): written by id, not defined again. */
const BUILTIN_FORMATS: Readonly<Record<string, number>> = { General: 0, '0': 1, '0.00': 2, '#,##0': 3, '#,##0.00': 4, '@': 49 };

/**
 * styles.xml, built from the styles the sheets asked for: each distinct look gets one cell format
 * (`s` index), fonts, fills, borders and number formats deduplicated. Written last, when every
 * sheet is done.
 */
export class StyleSheet {
  private readonly ids = new Map<string, number>();
  private readonly xfs: string[] = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'];
  private readonly fonts = new Index(['<font><sz val="11"/><name val="Calibri"/><family val="2"/></font>']);
  // The first two fills are reserved by the format (none, gray125).
  private readonly fills = new Index([
    '<fill><patternFill patternType="none"/></fill>',
    '<fill><patternFill patternType="gray125"/></fill>',
  ]);
  private readonly borders = new Index(['<border><left/><right/><top/><bottom/><diagonal/></border>']);
  private readonly numFmts = new Map<string, number>();

  /** The `s` attribute value of a style; 0 is the default look. */
  id(style: CellStyle | null): number {
    if (style === null) return 0;
    const key = JSON.stringify(style);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.xfs.length;
      this.xfs.push(this.xf(style));
      this.ids.set(key, id);
    }
    return id;
  }

  private xf(s: CellStyle): string {
    const numFmtId = s.numFmt === undefined ? 0 : this.numFmtId(s.numFmt);
    const font =
      s.bold || s.italic || s.size || s.color
        ? this.fonts.of(
            `<font>${s.bold ? '<b/>' : ''}${s.italic ? '<i/>' : ''}<sz val="${s.size ?? 11}"/>` +
              `${s.color ? `<color rgb="${s.color}"/>` : ''}<name val="Calibri"/><family val="2"/></font>`,
          )
        : 0;
    const fill = s.fill
      ? this.fills.of(`<fill><patternFill patternType="solid"><fgColor rgb="${s.fill}"/><bgColor indexed="64"/></patternFill></fill>`)
      : 0;
    const border = s.bottomBorder
      ? this.borders.of(`<border><left/><right/><top/><bottom style="thin"><color rgb="${s.bottomBorder}"/></bottom><diagonal/></border>`)
      : 0;
    const applies =
      (numFmtId ? ' applyNumberFormat="1"' : '') +
      (font ? ' applyFont="1"' : '') +
      (fill ? ' applyFill="1"' : '') +
      (border ? ' applyBorder="1"' : '');
    const head = `<xf numFmtId="${numFmtId}" fontId="${font}" fillId="${fill}" borderId="${border}" xfId="0"${applies}`;
    if (!s.alignRight && !s.wrap) return `${head}/>`;
    const align = `${s.alignRight ? ' horizontal="right"' : ''}${s.wrap ? ' vertical="top" wrapText="1"' : ''}`;
    return `${head} applyAlignment="1"><alignment${align}/></xf>`;
  }

  private numFmtId(code: string): number {
    const builtin = BUILTIN_FORMATS[code];
    if (builtin !== undefined) return builtin;
    let id = this.numFmts.get(code);
    if (id === undefined) {
      id = 164 + this.numFmts.size; // custom formats start at 164
      this.numFmts.set(code, id);
    }
    return id;
  }

  xml(): string {
    const numFmts = [...this.numFmts].map(([code, id]) => `<numFmt numFmtId="${id}" formatCode="${xmlAttr(code)}"/>`);
    return (
      `${XML_DECLARATION}<styleSheet xmlns="${MAIN_NS}">` +
      (numFmts.length ? `<numFmts count="${numFmts.length}">${numFmts.join('')}</numFmts>` : '') +
      this.fonts.xml('fonts') +
      this.fills.xml('fills') +
      this.borders.xml('borders') +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${this.xfs.length}">${this.xfs.join('')}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
      '<dxfs count="0"/><tableStyles count="0"/></styleSheet>'
    );
  }
}

/** A list of XML elements where each distinct one is kept once; its index is its id. */
class Index {
  private readonly ids = new Map<string, number>();
  constructor(private readonly items: string[]) {
    items.forEach((x, i) => this.ids.set(x, i));
  }
  of(xml: string): number {
    let id = this.ids.get(xml);
    if (id === undefined) {
      id = this.items.length;
      this.items.push(xml);
      this.ids.set(xml, id);
    }
    return id;
  }
  xml(tag: string): string {
    return `<${tag} count="${this.items.length}">${this.items.join('')}</${tag}>`;
  }
}
