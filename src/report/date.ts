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
 * The business days payrecon handles. Outside them a day's window is not a timestamp both luxon and
 * Postgres read: 0001-01-01 east of UTC starts in year 0, 9999-12-31 west of UTC ends in year 10000.
 */
export const FIRST_BUSINESS_DAY = '1970-01-01';
export const LAST_BUSINESS_DAY = '9999-12-30';

/** Why a YYYY-MM-DD calendar date is outside the supported days, or null (the CLI and the console say the same). */
export function unsupportedDay(date: string): string | null {
  return date < FIRST_BUSINESS_DAY || date > LAST_BUSINESS_DAY ? `expected a day from ${FIRST_BUSINESS_DAY} to ${LAST_BUSINESS_DAY}` : null;
}

/**
 * A business day in a zone. The shape check runs first so path-like input
 * ("../../etc") is refused before luxon or the file system ever sees it.
 */
export function businessDay(date: string, timezone: string): BusinessDay {
  if (typeof date !== 'string' || !DATE_SHAPE.test(date)) {
    throw new ReportInputError(`invalid date ${JSON.stringify(date)}: expected YYYY-MM-DD`);
  }
  const start = DateTime.fromISO(date, { zone: timezone });
  if (!start.isValid) {
    const zoneOk = DateTime.now().setZone(timezone).isValid;
    throw new ReportInputError(zoneOk ? `invalid date ${date}: not a calendar date` : `invalid time zone ${JSON.stringify(timezone)}`);
  }
  // fromISO rolls nothing over, but be explicit: 2023-02-29 must not become March 1st.
  if (start.toISODate() !== date) throw new ReportInputError(`invalid date ${date}: not a calendar date`);
  const unsupported = unsupportedDay(date);
  if (unsupported) throw new ReportInputError(`invalid date ${date}: ${unsupported}`);
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
