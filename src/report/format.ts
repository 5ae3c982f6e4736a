import { IANAZone } from 'luxon';
import { Decimal, formatAmount, isCurrency, normalizeDecimal } from '../money/decimal.ts';

/** USDT is written with 6 decimals (its usual precision on exchanges). */
export const USDT_DECIMALS = 6;

/**
 * An amount cell: the currency's fixed decimals, a plain number (never neutralised,
 * so "-12.50" stays numeric). A currency payrecon does not know keeps its own digits.
 */
export function amountCell(value: string | Decimal | null | undefined, currency: string): string {
  if (value === null || value === undefined) return '';
  return isCurrency(currency) ? formatAmount(value, currency) : normalizeDecimal(value);
}

/** A rate or other non-money decimal: written with the digits it was stored with. */
export function decimalCell(value: string | null | undefined): string {
  return value === null || value === undefined ? '' : normalizeDecimal(value);
}

export function usdtCell(value: Decimal | null): string {
  return value === null ? '' : value.toFixed(USDT_DECIMALS);
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * Epoch milliseconds -> "2024-05-01T23:59:59.999+05:30" in the zone (millisecond precision,
 * always a numeric offset, "+00:00" rather than "Z"). luxon supplies the zone's offset, cached
 * per minute (zone transitions fall on whole minutes): formatting each of a million rows with a
 * full DateTime costs seconds, this costs a Date.
 */
export function timeFormatter(zone: string): (epochMs: number) => string {
  const z = IANAZone.create(zone);
  if (!z.isValid) throw new Error(`invalid time zone ${JSON.stringify(zone)}`);
  const offsets = new Map<number, number>();
  return (epochMs) => {
    const minute = Math.floor(epochMs / 60_000);
    let offset = offsets.get(minute);
    if (offset === undefined) {
      if (offsets.size > 100_000) offsets.clear();
      offset = z.offset(epochMs);
      offsets.set(minute, offset);
    }
    return new Date(epochMs + offset * 60_000).toISOString().slice(0, 23) + offsetText(offset);
  };
}
