import type { Currency } from '../money/decimal.ts';
import type { Amount } from '../provider/types.ts';
import { groupedAmount } from './format.ts';
import { MISMATCH_CODES, VERDICTS, type MismatchCode, type Verdict } from './types.ts';

export interface Counts {
  total: number;
  /** Every verdict, zero included, so a run record always has the same keys. */
  verdicts: Record<Verdict, number>;
  /** Orders carrying each code (an order counts once per code); only codes seen, in MISMATCH_CODES order. */
  codes: Partial<Record<MismatchCode, number>>;
}

export function summarize(items: Iterable<{ verdict: Verdict; codes: readonly MismatchCode[] }>): Counts {
  const verdicts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  const seen = new Map<MismatchCode, number>();
  let total = 0;
  for (const item of items) {
    total += 1;
    verdicts[item.verdict] += 1;
    for (const code of new Set(item.codes)) seen.set(code, (seen.get(code) ?? 0) + 1);
  }
  const codes: Partial<Record<MismatchCode, number>> = {};
  for (const code of MISMATCH_CODES) if (seen.has(code)) codes[code] = seen.get(code);
  return { total, verdicts, codes };
}

export interface Drift {
  currency: Currency;
  drift: Amount;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * One line for an alert subject or run log, e.g. "3 mismatches, 1 error, NGN drift 1,250.00".
 * Mismatches are always stated (0 is news too); errors only when there are some. `drifts` are
 * the out-of-tolerance ones the caller wants named, shown in the order given.
 */
export function headline(counts: Counts, drifts: readonly Drift[] = []): string {
  const parts = [plural(counts.verdicts.mismatch, 'mismatch', 'mismatches')];
  if (counts.verdicts.error > 0) parts.push(plural(counts.verdicts.error, 'error', 'errors'));
  for (const d of drifts) parts.push(`${d.currency} drift ${groupedAmount(d.drift, d.currency)}`);
  return parts.join(', ');
}
