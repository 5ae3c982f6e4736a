import { CURRENCY_DECIMALS, isCurrency } from '../../money/decimal.ts';
import { zoneOffset } from '../zone-offset.ts';

/**
 * What a spreadsheet holds exactly: an IEEE double shows 15 significant digits faithfully.
 * An amount with more is written as text (and marked), never rounded into a number.
 */
export const SPREADSHEET_DIGITS = 15;

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Significant digits of decimal text: "0012.3400" has 4, "250000.00" has 2. */
export function significantDigits(text: string): number {
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length;
}

/**
 * A decimal as a workbook value: a number when the spreadsheet holds it exactly (the double
 * nearest to ≤ 15 significant digits reads back as the same digits), else the exact text.
 */
export function decimalValue(text: string): { number: number } | { text: string } {
  if (!DECIMAL.test(text)) return { text };
  return significantDigits(text) > SPREADSHEET_DIGITS ? { text } : { number: Number(text) };
}

/** The currency's decimals; an unknown currency gets 2, the common case. */
export function currencyDecimals(currency: string | null): number {
  return currency !== null && isCurrency(currency) ? CURRENCY_DECIMALS[currency] : 2;
}

/** `#,##0.00` for 2 decimals, `#,##0` for none: thousands separators, fixed decimals. */
export function amountFormat(decimals: number): string {
  return decimals === 0 ? '#,##0' : `#,##0.${'0'.repeat(decimals)}`;
}

export const COUNT_FORMAT = '#,##0';
export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/**
 * Epoch ms -> the Date whose UTC fields are the wall-clock time in the zone: spreadsheets have no
 * time zones, so a cell holds the local time the report's reader lives in (REPORT_TIMEZONE).
 */
export function wallClock(zone: string): (epochMs: number) => Date {
  const offsetAt = zoneOffset(zone);
  return (epochMs) => new Date(epochMs + offsetAt(epochMs) * 60_000);
}
