import { Decimal as DecimalJs } from 'decimal.js';
import { scanDecimal } from './decimal-text.ts';

/** Decimal arithmetic for money: 40 significant digits, no binary floating point anywhere. */
export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Decimal = InstanceType<typeof Decimal>;

export const CURRENCIES = ['INR', 'NGN', 'IDR'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** ISO 4217 minor units: how many decimals a currency's amounts are written with. */
export const CURRENCY_DECIMALS: Readonly<Record<Currency, number>> = Object.freeze({ INR: 2, NGN: 2, IDR: 2 });

/** Digits before and after the point of canonical decimal text ("-0.50" → 1 and 2). */
export function digitsOf(text: string): { integerDigits: number; scale: number } {
  // Read by character code: every provider answer and every comparison asks this of each amount.
  const d = scanDecimal(text);
  if (d !== null) return { integerDigits: d.point - d.intStart, scale: d.fractionDigits };
  const [int, frac = ''] = text.replace(/^-/, '').split('.');
  return { integerDigits: int.length, scale: frac.length };
}

export function isCurrency(value: unknown): value is Currency {
  return typeof value === 'string' && (CURRENCIES as readonly string[]).includes(value);
}

const DECIMAL_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** True for canonical decimal text such as "100", "-0.5", "12345678901234.56" (no exponent, no spaces). */
export function isDecimalText(value: string): boolean {
  return DECIMAL_TEXT.test(value);
}

export function toDecimal(value: string | Decimal): Decimal {
  return value instanceof Decimal ? value : new Decimal(value);
}

/** Fixed-decimal text for a currency, e.g. formatAmount("100.1", "INR") === "100.10". */
export function formatAmount(value: string | Decimal, currency: Currency): string {
  return toDecimal(value).toFixed(CURRENCY_DECIMALS[currency]);
}

/** Canonical text for storage and comparison: no trailing zeros, no exponent. */
export function normalizeDecimal(value: string | Decimal): string {
  if (typeof value === 'string') {
    const plain = canonicalPlainDecimal(value);
    if (plain !== null) return plain;
  }
  return toDecimal(value).toFixed();
}

/**
 * normalizeDecimal of plain decimal text ("250.50" -> "250.5", "-0.00" -> "0") without building a
 * Decimal: each provider answer carries three amounts, and the Decimal and its text were a visible
 * part of a fetch's CPU. Exactly Decimal's toFixed() for the texts it accepts (a test compares them);
 * null for any other form (exponents, leading zeros, signs other than "-"), which Decimal reads.
 */
function canonicalPlainDecimal(text: string): string | null {
  // One scan decides DECIMAL_TEXT's form too: no leading zero before other digits, no bare point ("12.").
  const d = scanDecimal(text);
  if (d === null || (d.point - d.intStart > 1 && text.charCodeAt(d.intStart) === 48) || (d.point < text.length && d.fractionDigits === 0)) {
    return null;
  }
  const end = d.significantFractionDigits === 0 ? d.point : d.point + 1 + d.significantFractionDigits;
  const out = end === text.length ? text : text.slice(0, end);
  // "-0" and "-0.00" are zero, which Decimal writes without a sign.
  return out === '-0' ? '0' : out;
}
