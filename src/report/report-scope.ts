import type { Window } from '../db/reports.ts';
import type { BusinessDay } from './date.ts';

/** What one version covers: the day, and the earlier days whose open items and late changes it carries. */
export interface ReportScope {
  date: string;
  partial: boolean;
  lookbackDays: number;
  /** The day as UTC instants, and as local ones for the manifest. */
  window: Window;
  localWindow: { from: string; to: string };
  /** The lookback days before the day: as instants, and as dates [first, end). */
  earlier: Window;
  earlierDays: { first: string; end: string };
  /** The account whose rows alone the version reads (several accounts configured); undefined: every row, as with one account. */
  account?: string;
  /** How the version's files name that account ("Display name (id)"); undefined with one account. */
  accountName?: string;
}

/** The account a version of several accounts' deployment is written for. */
export interface ReportAccount {
  id: string;
  displayName: string;
}

export function reportScope(day: BusinessDay, lookbackDays: number, partial: boolean, account?: ReportAccount): ReportScope {
  const first = day.start.minus({ days: lookbackDays }).startOf('day');
  return {
    ...(account !== undefined ? { account: account.id, accountName: accountLabel(account) } : {}),
    date: day.date,
    partial,
    lookbackDays,
    window: { from: day.start.toUTC().toISO()!, to: day.end.toUTC().toISO()! },
    localWindow: { from: day.start.toISO()!, to: day.end.toISO()! },
    earlier: { from: first.toUTC().toISO()!, to: day.start.toUTC().toISO()! },
    earlierDays: { first: first.toISODate()!, end: day.date },
  };
}

/** "IN main (in-main)", or the id alone when the display name is the id. */
export const accountLabel = (a: ReportAccount): string => (a.displayName === a.id ? a.id : `${a.displayName} (${a.id})`);
