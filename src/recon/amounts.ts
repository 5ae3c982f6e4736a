import { CURRENCY_DECIMALS, Decimal, isDecimalText, normalizeDecimal, type Currency } from '../money/decimal.ts';
import type { ReconPolicy } from './types.ts';

/** Decimal for plain decimal text, null for anything else (empty, exponent, hex, junk). */
export function readAmount(text: string | null | undefined): Decimal | null {
  if (typeof text !== 'string') return null;
  const t = text.trim();
  return isDecimalText(t) ? new Decimal(t) : null;
}

export function toleranceFor(policy: ReconPolicy, currency: Currency): Decimal {
  return readAmount(policy.tolerances[currency]) ?? new Decimal(0);
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

/**
 * Amount for a human sentence: "1000.00"; a value finer than the currency's minor unit keeps all its
 * digits ("0.005", never "0.01"); raw text in quotes when it is not a number.
 */
export function show(value: string | Decimal | null | undefined, currency: Currency): string {
  const d = value instanceof Decimal ? value : readAmount(value);
  if (d) return d.decimalPlaces() > CURRENCY_DECIMALS[currency] ? d.toFixed() : d.toFixed(CURRENCY_DECIMALS[currency]);
  return value == null ? 'none' : JSON.stringify(value);
}
