import type ExcelJS from 'exceljs';
import type { CellValue, ColumnKind } from '../table.ts';
import { currencyDecimals, decimalValue } from './cells.ts';
import { amountStyle, COUNT_STYLE, DATETIME_STYLE, EXACT_TEXT_STYLE, TEXT_STYLE } from './styles.ts';

export interface TypedCell {
  value: ExcelJS.CellValue;
  style: Partial<ExcelJS.Style> | null;
  /** An amount kept as text: more significant digits than a spreadsheet number holds. */
  exactText: boolean;
}

const EMPTY: TypedCell = { value: null, style: null, exactText: false };

/**
 * One raw table value as a workbook cell: text stays text ("044" keeps its zero), amounts become
 * numbers with the currency's format unless that would round them, times become date-times.
 */
export function typedCell(kind: ColumnKind, raw: CellValue, currency: string | null, wall: (ms: number) => Date): TypedCell {
  if (raw === null || raw === '') return EMPTY;
  switch (kind) {
    case 'text':
      return { value: String(raw), style: TEXT_STYLE, exactText: false };
    case 'count':
      return { value: Number(raw), style: COUNT_STYLE, exactText: false };
    case 'datetime':
      return { value: wall(Number(raw)), style: DATETIME_STYLE, exactText: false };
    case 'amount':
    case 'decimal': {
      const v = decimalValue(String(raw));
      if ('text' in v) return { value: v.text, style: EXACT_TEXT_STYLE, exactText: true };
      return { value: v.number, style: kind === 'amount' ? amountStyle(currencyDecimals(currency)) : null, exactText: false };
    }
  }
}

/** Column width in characters by kind, when the column names none. */
export function defaultWidth(kind: ColumnKind, name: string): number {
  if (name.endsWith('_ref')) return 38;
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
