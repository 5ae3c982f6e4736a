import { CURRENCY_DECIMALS, Decimal, isDecimalText, normalizeDecimal, type Currency } from '../money/decimal.ts';
import { scanDecimal } from '../money/decimal-text.ts';
import type { ReconPolicy } from './types.ts';

/** Decimal for plain decimal text, null for anything else (empty, exponent, hex, junk). */
export function readAmount(text: string | null | undefined): Decimal | null {
  if (typeof text !== 'string') return null;
  const t = text.trim();
  return isDecimalText(t) ? new Decimal(t) : null;
}

/** Whether readAmount would read `text`, without building the Decimal. */
export function isAmountText(text: string | null | undefined): text is string {
  return typeof text === 'string' && isDecimalText(text.trim());
}

/**
 * Decimal places of an amount readAmount reads (its significant fraction digits, "1.50" has 1), by a scan
 * of the text; null where readAmount reads nothing.
 */
export function amountPlaces(text: string | null | undefined): number | null {
  if (typeof text !== 'string') return null;
  const t = text.trim();
  return isDecimalText(t) ? scanDecimal(t)!.significantFractionDigits : null;
}

// A run's tolerances are its policy's, the same for every order: each text is read into a Decimal once,
// not once per order (a Decimal is immutable, so one value serves every comparison).
const toleranceCache = new WeakMap<ReconPolicy['tolerances'], Map<Currency, { text: string | undefined; value: Decimal }>>();

export function toleranceFor(policy: ReconPolicy, currency: Currency): Decimal {
  let byCurrency = toleranceCache.get(policy.tolerances);
  if (!byCurrency) toleranceCache.set(policy.tolerances, (byCurrency = new Map()));
  const text = policy.tolerances[currency];
  const known = byCurrency.get(currency);
  // Keyed by the text as well: a policy being built (resolvePolicy) may still change it.
  if (known && known.text === text) return known.value;
  const value = readAmount(text) ?? new Decimal(0);
  byCurrency.set(currency, { text, value });
  return value;
}

/**
 * True when the two amounts are further apart than the tolerance; exactly at the tolerance is
 * still equal. An unreadable side counts as different: a value nobody can read is not "agreed".
 */
export function differsBeyond(a: string | null | undefined, b: string | null | undefined, tolerance: Decimal): boolean {
  // Nearly every amount agrees: two plain texts of one value ("250.50", "250.5") have one canonical form,
  // found by a scan of each instead of two Decimals and a subtraction.
  if (typeof a === 'string' && typeof b === 'string' && isDecimalText(a) && isDecimalText(b) && !tolerance.isNegative()) {
    if (normalizeDecimal(a) === normalizeDecimal(b)) return false;
  }
  const x = readAmount(a);
  const y = readAmount(b);
  if (x === null || y === null) return true;
  return x.minus(y).abs().greaterThan(tolerance);
}

/** Non-negative decimal text with no sign, exponent or spaces: its integer part and its fraction digits. */
const PLAIN_AMOUNT = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/**
 * Amount for a human sentence: "1000.00"; a value finer than the currency's minor unit keeps all its
 * digits ("0.005", never "0.01"); raw text in quotes when it is not a number.
 */
export function show(value: string | Decimal | null | undefined, currency: Currency): string {
  // Most amounts a sentence shows are plain non-negative text within the minor unit: padded as
  // Decimal's toFixed would print them, without building one (a resolved order's reason shows its fee).
  if (typeof value === 'string') {
    const plain = PLAIN_AMOUNT.exec(value);
    const places = CURRENCY_DECIMALS[currency];
    const fraction = plain?.[2] ?? '';
    if (plain && fraction.length <= places) return places === 0 ? plain[1] : `${plain[1]}.${fraction.padEnd(places, '0')}`;
  }
  const d = value instanceof Decimal ? value : readAmount(value);
  if (d) return d.decimalPlaces() > CURRENCY_DECIMALS[currency] ? d.toFixed() : d.toFixed(CURRENCY_DECIMALS[currency]);
  return value == null ? 'none' : JSON.stringify(value);
}
