import { DateTime } from 'luxon';
import type { Schedules, ScheduledJobName } from './schedules.ts';

/** Catch-up looks back this far for a missed occurrence; older gaps are for a person to rerun. */
export const CATCH_UP_LOOKBACK_DAYS = 35;

export interface CatchUpInput {
  now: Date;
  zone: string;
  schedules: Schedules;
  /** When each periodic job last started (any outcome), from job_runs. */
  lastStarted: Partial<Record<Exclude<ScheduledJobName, 'daily'>, Date>>;
  /** Business dates (YYYY-MM-DD) with a completed 'daily' run. */
  dailyDone: ReadonlySet<string>;
  /** Business dates with at least one report version. */
  reportDates: ReadonlySet<string>;
}

export interface CatchUp {
  job: ScheduledJobName;
  /** The occurrence that was missed: the run behaves as if fired then. */
  scheduledFor: Date;
  /** daily only: the business date it covers. */
  date?: string;
}

/** The business date a daily occurrence covers: the day before it, in the zone. */
export function dailyDateFor(occurrence: Date, zone: string): string {
  return DateTime.fromJSDate(occurrence, { zone }).minus({ days: 1 }).toISODate()!;
}

/**
 * Jobs that were due while no scheduler ran, decided from recorded runs alone (pure: the caller
 * reads the clock and the database). A periodic job is due when its latest occurrence is later
 * than its latest run; the daily is due when the date its latest occurrence covers has no
 * completed daily run or no report.
 */
export function planCatchUp(input: CatchUpInput): CatchUp[] {
  const out: CatchUp[] = [];
  for (const job of ['reconcile', 'snapshot', 'bank-codes', 'prune'] as const) {
    const occurrence = input.schedules[job]?.previous(input.now, CATCH_UP_LOOKBACK_DAYS);
    if (!occurrence) continue;
    const last = input.lastStarted[job];
    if (!last || last.getTime() < occurrence.getTime()) out.push({ job, scheduledFor: occurrence });
  }
  const daily = input.schedules.daily?.previous(input.now, CATCH_UP_LOOKBACK_DAYS);
  if (daily) {
    const date = dailyDateFor(daily, input.zone);
    if (!input.dailyDone.has(date) || !input.reportDates.has(date)) out.push({ job: 'daily', scheduledFor: daily, date });
  }
  return out;
}
