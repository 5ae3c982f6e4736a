import { amountCell, decimalCell, fixedDecimalCell } from '../tabular/format.ts';
import { textCell } from '../tabular/neutralize.ts';
import { currencyIndex, type TableColumn, type TableRow } from '../tabular/table.ts';

/**
 * A table row as CSV cells: text neutralised against formula injection, amounts with the row
 * currency's fixed decimals (plain numbers, so negatives stay numbers), times in the zone.
 */
export function csvCells(columns: readonly TableColumn[], row: TableRow, formatTime: (ms: number) => string): string[] {
  const cur = currencyIndex(columns);
  const currency = cur >= 0 ? (row[cur] as string | null) : null;
  const out = new Array<string>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const v = row[i];
    if (v === null || v === '') {
      out[i] = '';
      continue;
    }
    switch (columns[i].kind) {
      case 'text':
        out[i] = textCell(String(v));
        break;
      case 'amount':
        out[i] = currency === null ? decimalCell(String(v)) : amountCell(String(v), currency);
        break;
      case 'count':
        out[i] = String(v);
        break;
      case 'datetime':
        out[i] = formatTime(Number(v));
        break;
      case 'decimal':
        out[i] = fixedDecimalCell(String(v), columns[i].decimals);
        break;
    }
  }
  return out;
}

export const csvHeader = (columns: readonly TableColumn[]): string[] => columns.map((c) => c.name);
