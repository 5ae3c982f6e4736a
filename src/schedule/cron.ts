import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { isFiveFieldCron } from '../config/cron-setting.ts';

/** How far next()/previous() look before giving up (an expression such as Feb 29 may match rarely). */
const DEFAULT_LIMIT_DAYS = 366;
const DAY_MS = 86_400_000;

/**
 * A 5-field cron expression in a time zone, at minute resolution. Matching, next and previous all
 * come from cron-parser, so they agree with each other; node-cron only supplies the minute tick.
 * The time is always passed in: nothing here reads the clock.
 */
export class CronSpec {
  private constructor(
    readonly expression: string,
    readonly zone: string,
  ) {}

  /** Throws RangeError for anything but a valid 5-field expression. */
  static parse(expression: string, zone: string): CronSpec {
    const expr = expression.trim().replace(/\s+/g, ' ');
    if (!isFiveFieldCron(expr)) {
      throw new RangeError(`expected a 5-field cron expression such as "*/15 * * * *" (got ${JSON.stringify(expression)})`);
    }
    return new CronSpec(expr, zone);
  }

  /** Whether the minute containing date is an occurrence. */
  matches(date: Date): boolean {
    const minute = floorMinute(date);
    return this.at(minute).includesDate(minute);
  }

  /** The first occurrence strictly after `after`, or null within limitDays. */
  next(after: Date, limitDays = DEFAULT_LIMIT_DAYS): Date | null {
    const expr = this.at(after, { endDate: new Date(after.getTime() + limitDays * DAY_MS) });
    return this.firstReal(expr, () => expr.hasNext() && expr.next().toDate());
  }

  /** The latest occurrence at or before `atOrBefore`, or null within limitDays. */
  previous(atOrBefore: Date, limitDays = DEFAULT_LIMIT_DAYS): Date | null {
    // prev() is strictly before its start, so start one minute later to include atOrBefore's own minute.
    const start = new Date(floorMinute(atOrBefore).getTime() + 60_000);
    const expr = this.at(start, { startDate: new Date(start.getTime() - limitDays * DAY_MS) });
    return this.firstReal(expr, () => expr.hasPrev() && expr.prev().toDate());
  }

  /**
   * cron-parser moves a local time that DST skips to the hour after, but only from some start
   * points; such a time is not an occurrence here, so matches, next and previous always agree.
   */
  private firstReal(expr: CronExpression, step: () => Date | false): Date | null {
    for (let at = step(); at; at = step()) if (expr.includesDate(at)) return at;
    return null;
  }

  private at(currentDate: Date, bounds: { startDate?: Date; endDate?: Date } = {}): CronExpression {
    return CronExpressionParser.parse(this.expression, { currentDate, tz: this.zone, ...bounds });
  }
}

export function floorMinute(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 60_000) * 60_000);
}
