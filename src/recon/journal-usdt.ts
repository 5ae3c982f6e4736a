import { Decimal, normalizeDecimal } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import { readAmount } from './amounts.ts';
import type { JournalLine } from './journal-types.ts';

/** The day's closing rate snapshot of a currency: currency units per 1 USDT. */
export interface DayRate {
  deposit: Amount;
  withdraw: Amount;
}

export const JOURNAL_USDT_DECIMALS = 6;

/**
 * Each line's USDT value: its amount ÷ the day's closing rate, deposit side for an entry that brings
 * money in, withdraw side for one that takes it out, rounded half-up to 6 decimals. Rounded lines
 * may not sum to zero; the residual goes on a `rounding` line of the entry (USDT only, amount 0), so
 * every entry balances in USDT too and totals are sums of line values.
 */
export function usdtValues(
  lines: ReadonlyArray<Omit<JournalLine, 'usdtRate' | 'usdt'>>,
  rate: DayRate | null,
  inflow: boolean,
  description: string,
): JournalLine[] {
  const text = rate === null ? null : inflow ? rate.deposit : rate.withdraw;
  const r = readAmount(text);
  if (r === null || r.isZero() || r.isNegative()) return lines.map((l) => ({ ...l, usdtRate: null, usdt: null }));
  let sum = new Decimal(0);
  const out: JournalLine[] = lines.map((l) => {
    const usdt = new Decimal(l.amount).dividedBy(r).toDecimalPlaces(JOURNAL_USDT_DECIMALS, Decimal.ROUND_HALF_UP);
    sum = sum.plus(usdt);
    return { ...l, usdtRate: normalizeDecimal(r), usdt: usdt.toFixed(JOURNAL_USDT_DECIMALS) };
  });
  if (!sum.isZero()) {
    out.push({
      role: 'rounding',
      amount: '0',
      usdtRate: normalizeDecimal(r),
      usdt: sum.negated().toFixed(JOURNAL_USDT_DECIMALS),
      description: `USDT rounding of ${description}`,
      sourceRef: 'rounding',
    });
  }
  return out;
}
