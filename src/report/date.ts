import { DateTime } from 'luxon';

/** Bad report input (date, zone): nothing was done. exitCode 3 is EXIT.USAGE for the CLI. */
export class ReportInputError extends Error {
  readonly exitCode = 3;
  constructor(message: string) {
    super(message);
    this.name = 'ReportInputError';
  }
}

export interface BusinessDay {
  /** The validated YYYY-MM-DD, safe to use as a directory name. */
  readonly date: string;
  readonly timezone: string;
  /** Local midnight of the day and of the next day: the window is [start, end). */
  readonly start: DateTime;
  readonly end: DateTime;
}

const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;
/**
 * The business dates payrecon accepts. Nothing of the provider's predates 2000; the last is
 * 9999-12-30 so that the day's end (the next midnight, in any zone) still has a four-digit year,
 * which luxon's ISO text and Postgres both read. Outside these, a date is a typo (0001-01-01).
 */
export const FIRST_BUSINESS_DATE = '2000-01-01';
export const LAST_BUSINESS_DATE = '9999-12-30';

/**
 * The one check of a business date typed by a person (CLI options, the console's forms): the
 * YYYY-MM-DD shape first, so path-like input ("../../etc") goes no further, then a real calendar
 * day (2023-02-29 does not roll over to March), then the range. Returns the date; throws
 * ReportInputError (exit 3) whose message starts with `field: ` when a field is named.
 */
export function checkBusinessDate(value: string, field?: string): string {
  const shaped = typeof value === 'string' && DATE_SHAPE.test(value);
  const calendar = shaped && DateTime.fromISO(value, { zone: 'UTC' }).toISODate() === value;
  if (!calendar || value < FIRST_BUSINESS_DATE || value > LAST_BUSINESS_DATE) {
    const shown = shaped ? value : JSON.stringify(String(value).slice(0, 40));
    throw new ReportInputError(
      `${field ? `${field}: ` : ''}invalid date ${shown}: expected a calendar date as YYYY-MM-DD from ${FIRST_BUSINESS_DATE} to ${LAST_BUSINESS_DATE}`,
    );
  }
  return value;
}

/** A business day in a zone; the date is checked by checkBusinessDate first. */
export function businessDay(date: string, timezone: string): BusinessDay {
  checkBusinessDate(date);
  const start = DateTime.fromISO(date, { zone: timezone });
  if (!start.isValid) throw new ReportInputError(`invalid time zone ${JSON.stringify(timezone)}`);
  // startOf('day') handles zones whose midnight does not exist on DST days.
  return { date, timezone, start: start.startOf('day'), end: start.plus({ days: 1 }).startOf('day') };
}

/** Yesterday in the zone: the default report date, since today is not over yet. */
export function defaultReportDate(timezone: string, now: Date = new Date()): string {
  const d = DateTime.fromJSDate(now).setZone(timezone).minus({ days: 1 }).toISODate();
  if (!d) throw new ReportInputError(`invalid time zone ${JSON.stringify(timezone)}`);
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
  throw new ReportInputError(`date ${day.date} is in the future in ${day.timezone} (today there is ${today}); report a day that has begun`);
}
