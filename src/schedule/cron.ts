import { createTask, parse, validate } from 'node-cron';
import { DateTime } from 'luxon';

/** How far next()/previous() look before giving up (an expression such as Feb 29 may match rarely). */
const DEFAULT_LIMIT_DAYS = 366;

/**
 * A 5-field cron expression in a time zone, at minute resolution. Matching is node-cron's own
 * (so the decision agrees with node-cron's syntax: ranges, steps, names, L, #), but the time is
 * always passed in: nothing here reads the clock.
 */
export class CronSpec {
  private constructor(
    readonly expression: string,
    readonly zone: string,
    private readonly matcher: (date: Date) => boolean,
    private readonly hours: readonly number[],
    private readonly minutes: readonly number[],
  ) {}

  /** Throws RangeError for anything but a valid 5-field expression. */
  static parse(expression: string, zone: string): CronSpec {
    const expr = expression.trim().replace(/\s+/g, ' ');
    if (expr.split(' ').length !== 5 || !validate(expr)) {
      throw new RangeError(`expected a 5-field cron expression such as "*/15 * * * *" (got ${JSON.stringify(expression)})`);
    }
    const fields = parse(expr);
    // An unstarted task is the only public handle on node-cron's matcher; destroyed at once so the
    // registry holds nothing and no timer ever exists.
    const task = createTask(expr, () => undefined, { timezone: zone });
    void task.destroy();
    const sorted = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);
    return new CronSpec(expr, zone, (d) => task.match(d), sorted(fields.hour), sorted(fields.minute));
  }

  /** Whether the minute containing date is an occurrence. */
  matches(date: Date): boolean {
    return this.matcher(floorMinute(date));
  }

  /** The first occurrence strictly after `after`, or null within limitDays. */
  next(after: Date, limitDays = DEFAULT_LIMIT_DAYS): Date | null {
    const from = after.getTime();
    let day = DateTime.fromJSDate(after, { zone: this.zone }).startOf('day');
    for (let i = 0; i <= limitDays; i++, day = day.plus({ days: 1 })) {
      for (const t of this.candidates(day)) if (t.getTime() > from) return t;
    }
    return null;
  }

  /** The latest occurrence at or before `atOrBefore`, or null within limitDays. */
  previous(atOrBefore: Date, limitDays = DEFAULT_LIMIT_DAYS): Date | null {
    const until = atOrBefore.getTime();
    let day = DateTime.fromJSDate(atOrBefore, { zone: this.zone }).startOf('day');
    for (let i = 0; i <= limitDays; i++, day = day.minus({ days: 1 })) {
      const found = this.candidates(day).filter((t) => t.getTime() <= until);
      if (found.length) return found[found.length - 1];
    }
    return null;
  }

  /** Occurrences on one local day, ascending. Local times that DST skips are not occurrences. */
  private candidates(day: DateTime): Date[] {
    const out: Date[] = [];
    for (const hour of this.hours) {
      for (const minute of this.minutes) {
        const local = day.set({ hour, minute, second: 0, millisecond: 0 });
        if (local.hour !== hour || local.minute !== minute || !local.hasSame(day, 'day')) continue;
        const at = local.toJSDate();
        if (this.matcher(at)) out.push(at);
      }
    }
    return out.sort((a, b) => a.getTime() - b.getTime());
  }
}

export function floorMinute(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 60_000) * 60_000);
}
