import { CURRENCY_DECIMALS, digitsOf, isCurrency, type Currency } from './decimal.ts';

/**
 * The largest values payrecon takes from outside — provider answers, notifications and the
 * merchant's own CSV import alike: beyond these a value is refused with an error naming it, never
 * stored. One set for every entrance, so an order cannot be imported with a value its provider
 * answer could never match. Integer digits cover IDR's largest amounts many times over; the scale
 * leaves room for values finer than the minor unit, which are reported as findings with their exact
 * value rather than refused (see recon/checks.ts).
 */
export interface AmountBounds {
  integerDigits: number;
  scale: number;
}

export const AMOUNT_BOUNDS: Readonly<Record<Currency, AmountBounds>> = Object.freeze({
  INR: { integerDigits: 15, scale: CURRENCY_DECIMALS.INR + 6 },
  NGN: { integerDigits: 15, scale: CURRENCY_DECIMALS.NGN + 6 },
  IDR: { integerDigits: 15, scale: CURRENCY_DECIMALS.IDR + 6 },
});

/** For a currency payrecon does not know (itself a finding elsewhere): the widest of the known bounds. */
export function amountBoundsFor(currency: unknown): AmountBounds {
  if (isCurrency(currency)) return AMOUNT_BOUNDS[currency];
  const all = Object.values(AMOUNT_BOUNDS);
  return { integerDigits: Math.max(...all.map((b) => b.integerDigits)), scale: Math.max(...all.map((b) => b.scale)) };
}

/** Whether decimal text fits the currency's bounds (see amountBoundsFor for an unknown currency). */
export function withinAmountBounds(text: string, currency: unknown): boolean {
  const bounds = amountBoundsFor(currency);
  const { integerDigits, scale } = digitsOf(text);
  return integerDigits <= bounds.integerDigits && scale <= bounds.scale;
}

/**
 * UTC offsets of real time zones run from -12:00 to +14:00; luxon also reads "+25:00" or
 * "+05:99" as an offset, which can only be a typo that moves the time by a day.
 */
export const MIN_UTC_OFFSET_MINUTES = -12 * 60;
export const MAX_UTC_OFFSET_MINUTES = 14 * 60;

/** An ISO-8601 offset ("Z", "+05:30", "+0530", "-12") within the bounds, minutes below 60. */
export function withinOffsetBounds(offset: string): boolean {
  if (offset === 'Z') return true;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(offset);
  if (!m || Number(m[3] ?? 0) > 59) return false;
  const minutes = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
  return minutes >= MIN_UTC_OFFSET_MINUTES && minutes <= MAX_UTC_OFFSET_MINUTES;
}
