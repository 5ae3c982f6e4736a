import { CURRENCY_DECIMALS, type Currency } from '../money/decimal.ts';
import { groupDigits } from '../money/group-digits.ts';
import { readAmount } from './amounts.ts';

/** "12,345,678,901,234.56": thousands grouped with commas, the currency's decimals, digits kept exactly. */
export function groupedAmount(value: string, currency: Currency): string {
  const d = readAmount(value);
  if (d === null) return JSON.stringify(value);
  return groupDigits(d.toFixed(CURRENCY_DECIMALS[currency]));
}
