import { DateTime } from 'luxon';
import { Decimal, normalizeDecimal, type Currency } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import { readAmount } from './amounts.ts';
import { JOURNAL_USDT_DECIMALS, type DayRate } from './journal-usdt.ts';
import type { JournalEntry } from './journal-types.ts';

/**
 * Month-end revaluation (JOURNAL_FX_REVALUATION, docs/guides/for-accounting.md). The wallet holds a
 * local currency; its USDT value in the ledger is the sum of what each line was valued at when
 * posted. At a month's last day that is restated at the day's closing rate (withdraw side: what the
 * balance fetches taken out) by an `fx_revaluation` entry: USDT only (amount 0), wallet against the
 * unrealised FX account; it is reversed on the first day of the next month, so the next month's
 * lines post at their own rates from the historical value again. Each is keyed by month and
 * currency, so it is posted once.
 */
export interface WalletBook {
  /** Σ of the wallet's posted lines in its currency. */
  amount: Amount;
  /** Σ of their USDT values; null when some line has none (no revaluation then). */
  usdt: Amount | null;
}

/** True when `date` (YYYY-MM-DD) is the last day of its month. */
export function isMonthEnd(date: string): boolean {
  const d = DateTime.fromISO(date, { zone: 'UTC' });
  return d.isValid && d.plus({ days: 1 }).month !== d.month;
}

/** The revaluation and its reversal for one currency at month end `date`; none when nothing moves or no rate. */
export function revaluationEntries(date: string, currency: Currency, book: WalletBook, rate: DayRate | null): JournalEntry[] {
  const r = readAmount(rate?.withdraw ?? null);
  const amount = readAmount(book.amount);
  const usdt = readAmount(book.usdt);
  if (r === null || !r.isPositive() || amount === null || usdt === null) return [];
  const restated = amount.dividedBy(r).toDecimalPlaces(JOURNAL_USDT_DECIMALS, Decimal.ROUND_HALF_UP);
  const diff = restated.minus(usdt);
  if (diff.isZero()) return [];
  const month = date.slice(0, 7);
  const next = DateTime.fromISO(date, { zone: 'UTC' }).plus({ days: 1 }).toISODate()!;
  const rateText = normalizeDecimal(r);
  const what = `${currency} ${normalizeDecimal(amount)} restated at ${rateText} ${currency}/USDT: ${restated.toFixed(JOURNAL_USDT_DECIMALS)} USDT, was ${usdt.toFixed(JOURNAL_USDT_DECIMALS)}`;
  const entry = (key: string, id: string, on: string, sign: 1 | -1, description: string): JournalEntry => ({
    key,
    id,
    date: on,
    currency,
    kind: 'fx_revaluation',
    description,
    lines: [
      {
        role: 'wallet',
        amount: '0',
        usdtRate: rateText,
        usdt: diff.times(sign).toFixed(JOURNAL_USDT_DECIMALS),
        description: what,
        sourceRef: month,
      },
      {
        role: 'fx_revaluation',
        amount: '0',
        usdtRate: rateText,
        usdt: diff.times(-sign).toFixed(JOURNAL_USDT_DECIMALS),
        description: what,
        sourceRef: month,
      },
    ],
  });
  return [
    entry(
      `fx_revaluation:${month}:${currency}`,
      `${date}-${currency}-fx-revaluation`,
      date,
      1,
      `${currency} wallet revalued at the close of ${month}`,
    ),
    entry(
      `fx_revaluation_reversal:${month}:${currency}`,
      `${next}-${currency}-fx-revaluation-reversal`,
      next,
      -1,
      `${currency} reversal of the ${month} month-end revaluation`,
    ),
  ];
}
