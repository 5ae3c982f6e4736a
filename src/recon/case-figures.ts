import { AGE_BUCKETS, ageBucket, CLEARED_BY_RECHECK, RESOLUTION_REASONS, type CaseReason, type CaseState } from './cases.ts';

/**
 * The case columns and figures reports carry. Pure: the cases and the report's instant come in.
 *
 * Choices made for the finance team:
 * - An order with several cases shows the one that most needs a person: open, then acknowledged,
 *   then written off, then resolved. Its age is the oldest unresolved case's, in whole days.
 * - A written-off case reads "written off", not "resolved": the finding is still there, on purpose.
 */

export interface CaseLike {
  id: string;
  state: CaseState;
  resolution: CaseReason | null;
  openedAt: Date;
}

export interface OrderCaseCells {
  /** "12 15": every case of the order, by id. */
  caseIds: string;
  caseState: string;
  /** Whole days since the oldest unresolved case was (re)opened; null when none is unresolved. */
  caseAgeDays: number | null;
}

const DAY_MS = 86_400_000;

const rank = (c: CaseLike): number => (c.state === 'open' ? 0 : c.state === 'acknowledged' ? 1 : c.resolution === 'written-off' ? 2 : 3);

export function caseStateText(c: Pick<CaseLike, 'state' | 'resolution'>): string {
  if (c.state !== 'resolved') return c.state;
  return c.resolution === 'written-off' ? 'written off' : 'resolved';
}

export function orderCaseCells(cases: readonly CaseLike[], now: Date): OrderCaseCells {
  if (cases.length === 0) return { caseIds: '', caseState: '', caseAgeDays: null };
  const ids = [...cases].sort((a, b) => Number(a.id) - Number(b.id)).map((c) => c.id);
  const first = [...cases].sort((a, b) => rank(a) - rank(b))[0];
  const unresolved = cases.filter((c) => c.state !== 'resolved');
  const oldest = unresolved.length ? Math.min(...unresolved.map((c) => c.openedAt.getTime())) : null;
  return {
    caseIds: ids.join(' '),
    caseState: caseStateText(first),
    caseAgeDays: oldest === null ? null : wholeDaysSince(oldest, now),
  };
}

/** Whole days from an instant (epoch ms) to `now`; never negative. */
export function wholeDaysSince(fromMs: number, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - fromMs) / DAY_MS));
}

export const SUMMARY_REASONS = [...RESOLUTION_REASONS, CLEARED_BY_RECHECK] as const;

/** One currency's cases for a report: opened and resolved during the day, and still open by age. */
export interface CaseSummaryRow {
  currency: string;
  opened: number;
  /** Of `opened`, cases that had been resolved before. */
  reopened: number;
  resolved: Record<(typeof SUMMARY_REASONS)[number], number>;
  /** Open or acknowledged at the report's instant, by age since (re)opening. */
  stillOpen: Record<(typeof AGE_BUCKETS)[number]['label'], number>;
}

export function caseSummary(
  transitions: ReadonlyArray<{ currency: string; toState: CaseState; reason: string | null; reopened: boolean; count: number }>,
  unresolved: ReadonlyArray<{ currency: string; openedAt: Date }>,
  currencies: readonly string[],
  now: Date,
): CaseSummaryRow[] {
  const rows = new Map<string, CaseSummaryRow>();
  const row = (currency: string): CaseSummaryRow => {
    let r = rows.get(currency);
    if (!r) {
      r = {
        currency,
        opened: 0,
        reopened: 0,
        resolved: Object.fromEntries(SUMMARY_REASONS.map((k) => [k, 0])) as CaseSummaryRow['resolved'],
        stillOpen: Object.fromEntries(AGE_BUCKETS.map((b) => [b.label, 0])) as CaseSummaryRow['stillOpen'],
      };
      rows.set(currency, r);
    }
    return r;
  };
  for (const c of currencies) row(c);
  for (const t of transitions) {
    const r = row(t.currency);
    if (t.toState === 'open') {
      r.opened += t.count;
      if (t.reopened) r.reopened += t.count;
    } else if (t.toState === 'resolved' && t.reason && t.reason in r.resolved) {
      r.resolved[t.reason as keyof CaseSummaryRow['resolved']] += t.count;
    }
  }
  for (const u of unresolved) row(u.currency).stillOpen[ageBucket(u.openedAt, now)] += 1;
  const order = (c: string) => (currencies.includes(c) ? currencies.indexOf(c) : currencies.length);
  return [...rows.values()].sort((a, b) => order(a.currency) - order(b.currency) || a.currency.localeCompare(b.currency));
}
