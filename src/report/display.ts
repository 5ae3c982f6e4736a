import { groupDigits } from '../money/group-digits.ts';
import { amountCell, fixedDecimalCell } from '../tabular/format.ts';
import type { CellValue, ColumnKind } from '../tabular/table.ts';

/**
 * Values as a person reads them in report.html and the e-mail: amounts with thousands separators
 * and the currency's decimals, counts grouped, times in REPORT_TIMEZONE. String work only, so no
 * amount passes through a float on its way to the page.
 */

/** Amounts and counts are right-aligned; text reads from the left. */
export function isNumericKind(kind: ColumnKind): boolean {
  return kind === 'amount' || kind === 'count' || kind === 'decimal';
}

export function displayValue(
  kind: ColumnKind,
  value: CellValue,
  currency: string | null,
  formatTime: (ms: number) => string,
  decimals?: number,
): string {
  if (value === null || value === '') return '';
  switch (kind) {
    case 'amount':
      return groupDigits(currency ? amountCell(String(value), currency) : String(value));
    case 'count':
      return groupDigits(String(value));
    case 'decimal':
      return decimals === undefined ? String(value) : groupDigits(fixedDecimalCell(String(value), decimals));
    case 'datetime':
      // "2026-11-22T15:45:30.000+05:30" -> "2026-11-22 15:45:30 +05:30"
      return formatTime(Number(value))
        .replace('T', ' ')
        .replace(/\.\d{3}/, ' ');
    case 'text':
      return String(value);
  }
}
