import { Decimal as DecimalJs } from 'decimal.js';

/** Decimal arithmetic for money: 40 significant digits, no binary floating point anywhere. */
export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Decimal = InstanceType<typeof Decimal>;

export const CURRENCIES = ['INR', 'NGN', 'IDR'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** ISO 4217 minor units: how many decimals a currency's amounts are written with. */
export const CURRENCY_DECIMALS: Readonly<Record<Currency, number>> = Object.freeze({ INR: 2, NGN: 2, IDR: 2 });

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
  return toDecimal(value).toFixed();
}
