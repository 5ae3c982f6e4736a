import { CURRENCY_DECIMALS, isCurrency } from '../../money/decimal.ts';
import { scanDecimal } from '../../money/decimal-text.ts';
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
  return holdsExactly(text) ? { number: Number(text) } : { text };
}

/**
 * Whether decimal text can be a spreadsheet number without losing a digit. Text of at most 15
 * digit characters always can (the common amount, decided without counting).
 */
export function holdsExactly(text: string): boolean {
  if (!DECIMAL.test(text)) return false;
  const digits = text.length - (text.charCodeAt(0) === 45 ? 1 : 0) - (text.includes('.') ? 1 : 0);
  return digits <= SPREADSHEET_DIGITS || significantDigits(text) <= SPREADSHEET_DIGITS;
}

/** The currency's decimals; an unknown currency gets 2, the common case. */
export function currencyDecimals(currency: string | null): number {
  return currency !== null && isCurrency(currency) ? CURRENCY_DECIMALS[currency] : 2;
}

/**
 * The decimals an amount's number format shows: the currency's, or the amount's own significant
 * decimals when it has more (a value finer than the minor unit), so a cell never displays a
 * rounded amount.
 */
export function amountDecimals(text: string, currency: string | null): number {
  const decimals = currencyDecimals(currency);
  const d = scanDecimal(text);
  return d === null || d.significantFractionDigits <= decimals ? decimals : d.significantFractionDigits;
}

/** `#,##0.00` for 2 decimals, `#,##0` for none: thousands separators, fixed decimals. */
export function amountFormat(decimals: number): string {
  return decimals === 0 ? '#,##0' : `#,##0.${'0'.repeat(decimals)}`;
}

export const COUNT_FORMAT = '#,##0';
export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/** Days from the spreadsheet epoch (1899-12-30) to 1970-01-01. */
const UNIX_EPOCH_SERIAL = 25569;
const DAY_MS = 86_400_000;

/**
 * Epoch ms -> the spreadsheet date-time serial of the wall-clock time in the zone: spreadsheets
 * have no time zones, so a cell holds the local time the report's reader lives in
 * (REPORT_TIMEZONE).
 */
export function wallClockSerial(zone: string): (epochMs: number) => number {
  const offsetAt = zoneOffset(zone);
  return (epochMs) => (epochMs + offsetAt(epochMs) * 60_000) / DAY_MS + UNIX_EPOCH_SERIAL;
}
