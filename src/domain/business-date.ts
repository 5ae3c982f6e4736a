import { DateTime } from 'luxon';
import { UsageError } from './errors.ts';

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
 * UsageError (exit 3) whose message starts with `field: ` when a field is named.
 */
export function checkBusinessDate(value: string, field?: string): string {
  const shaped = typeof value === 'string' && DATE_SHAPE.test(value);
  const calendar = shaped && DateTime.fromISO(value, { zone: 'UTC' }).toISODate() === value;
  if (!calendar || value < FIRST_BUSINESS_DATE || value > LAST_BUSINESS_DATE) {
    const shown = shaped ? value : JSON.stringify(String(value).slice(0, 40));
    throw new UsageError(
      `${field ? `${field}: ` : ''}invalid date ${shown}: expected a calendar date as YYYY-MM-DD from ${FIRST_BUSINESS_DATE} to ${LAST_BUSINESS_DATE}`,
    );
  }
  return value;
}
