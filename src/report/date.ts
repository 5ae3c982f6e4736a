import { DateTime } from 'luxon';
import { checkBusinessDate } from '../domain/business-date.ts';
import { UsageError } from '../domain/errors.ts';

export interface BusinessDay {
  /** The validated YYYY-MM-DD, safe to use as a directory name. */
  readonly date: string;
  readonly timezone: string;
  /** Local midnight of the day and of the next day: the window is [start, end). */
  readonly start: DateTime;
  readonly end: DateTime;
}

/** A business day in a zone; the date is checked by checkBusinessDate first. */
export function businessDay(date: string, timezone: string): BusinessDay {
  checkBusinessDate(date);
  const start = DateTime.fromISO(date, { zone: timezone });
  if (!start.isValid) throw new UsageError(`invalid time zone ${JSON.stringify(timezone)}`);
  // startOf('day') handles zones whose midnight does not exist on DST days.
  return { date, timezone, start: start.startOf('day'), end: start.plus({ days: 1 }).startOf('day') };
}

/** Yesterday in the zone: the default report date, since today is not over yet. */
export function defaultReportDate(timezone: string, now: Date = new Date()): string {
  const d = DateTime.fromJSDate(now).setZone(timezone).minus({ days: 1 }).toISODate();
  if (!d) throw new UsageError(`invalid time zone ${JSON.stringify(timezone)}`);
  return d;
}

/**
 * Whether the day is over at `now`: a report of today is allowed and partial (its figures may
 * still move); a day that has not begun is refused, since a report of it would only say "no orders".
 */
export function dayIsPartial(day: BusinessDay, now: Date): boolean {
  const t = now.getTime();
  if (t >= day.end.toMillis()) return false;
  if (t >= day.start.toMillis()) return true;
  const today = DateTime.fromJSDate(now).setZone(day.timezone).toISODate();
  throw new UsageError(`date ${day.date} is in the future in ${day.timezone} (today there is ${today}); report a day that has begun`);
}
