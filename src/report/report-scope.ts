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
}

export function reportScope(day: BusinessDay, lookbackDays: number, partial: boolean): ReportScope {
  const first = day.start.minus({ days: lookbackDays }).startOf('day');
  return {
    date: day.date,
    partial,
    lookbackDays,
    window: { from: day.start.toUTC().toISO()!, to: day.end.toUTC().toISO()! },
    localWindow: { from: day.start.toISO()!, to: day.end.toISO()! },
    earlier: { from: first.toUTC().toISO()!, to: day.start.toUTC().toISO()! },
    earlierDays: { first: first.toISODate()!, end: day.date },
  };
}
