import { CURRENCY_DECIMALS, type Currency } from '../money/decimal.ts';
import { readAmount } from './amounts.ts';

/** "12,345,678,901,234.56": thousands grouped with commas, the currency's decimals, digits kept exactly. */
export function groupedAmount(value: string, currency: Currency): string {
  const d = readAmount(value);
  if (d === null) return JSON.stringify(value);
  const fixed = d.toFixed(CURRENCY_DECIMALS[currency]);
  const [whole, fraction] = fixed.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.replace('-', '').replace(/\B(?=(\d{3})+$)/g, ',');
  return `${sign}${digits}${fraction === undefined ? '' : `.${fraction}`}`;
}
