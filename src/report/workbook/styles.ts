import type ExcelJS from 'exceljs';
import { amountFormat, COUNT_FORMAT, DATETIME_FORMAT } from './cells.ts';

/**
 * Styles shared by reference between cells (exceljs dedupes them into styles.xml): one object
 * per look, never mutated after creation.
 */
type Style = Partial<ExcelJS.Style>;

const formats = new Map<string, Style>();
/** A number format style, one object per format. */
export function numberStyle(numFmt: string, bold = false): Style {
  const key = `${numFmt}|${bold}`;
  let s = formats.get(key);
  if (!s) {
    s = Object.freeze(bold ? { numFmt, font: { bold: true } } : { numFmt });
    formats.set(key, s);
  }
  return s;
}

export const amountStyle = (decimals: number, bold = false): Style => numberStyle(amountFormat(decimals), bold);
export const COUNT_STYLE = numberStyle(COUNT_FORMAT);
export const DATETIME_STYLE = numberStyle(DATETIME_FORMAT);
export const TEXT_STYLE: Style = Object.freeze({ numFmt: '@' });

/** An amount kept as text because a spreadsheet number would round it: right-aligned, shaded, italic. */
export const EXACT_TEXT_STYLE: Style = Object.freeze<Style>({
  numFmt: '@',
  alignment: { horizontal: 'right' },
  font: { italic: true },
  fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFCE4C4' } },
});

export const HEADER_STYLE: Style = Object.freeze<Style>({
  font: { bold: true },
  fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8ECF2' } },
  border: { bottom: { style: 'thin', color: { argb: 'FF8A94A6' } } },
  alignment: { vertical: 'bottom', wrapText: false },
});

export const BOLD_STYLE: Style = Object.freeze({ font: { bold: true } });
export const TITLE_STYLE: Style = Object.freeze({ font: { bold: true, size: 13 } });
export const NOTE_STYLE: Style = Object.freeze({ font: { italic: true, color: { argb: 'FF555555' } } });
