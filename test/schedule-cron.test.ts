import { describe, expect, it } from 'vitest';
import { CronSpec } from '../src/schedule/cron.ts';
import { loadConfig } from '../src/config/config.ts';
import { ConfigError } from '../src/config/errors.ts';

const d = (iso: string) => new Date(iso);

describe('CronSpec', () => {
  it.each([
    // expression, zone, instant, matches
    ['*/15 * * * *', 'UTC', '2026-03-10T10:45:00Z', true],
    ['*/15 * * * *', 'UTC', '2026-03-10T10:46:00Z', false],
    ['*/15 * * * *', 'UTC', '2026-03-10T10:45:59.999Z', true], // minute resolution
    ['0 6 * * *', 'Asia/Kolkata', '2026-03-10T00:30:00Z', true], // 06:00 IST
    ['0 6 * * *', 'Asia/Kolkata', '2026-03-10T06:00:00Z', false],
    ['30 2 * * mon', 'UTC', '2026-03-09T02:30:00Z', true], // a Monday
    ['30 2 * * mon', 'UTC', '2026-03-10T02:30:00Z', false],
  ])('%s in %s matches %s: %s', (expr, zone, at, expected) => {
    expect(CronSpec.parse(expr, zone).matches(d(at))).toBe(expected);
  });

  it('next is strictly after, previous is at or before, in the zone', () => {
    const daily = CronSpec.parse('0 6 * * *', 'Asia/Kolkata');
    expect(daily.next(d('2026-03-10T00:30:00Z'))).toEqual(d('2026-03-11T00:30:00Z'));
    expect(daily.next(d('2026-03-10T00:29:00Z'))).toEqual(d('2026-03-10T00:30:00Z'));
    expect(daily.previous(d('2026-03-10T00:30:00Z'))).toEqual(d('2026-03-10T00:30:00Z'));
    expect(daily.previous(d('2026-03-10T00:29:59Z'))).toEqual(d('2026-03-09T00:30:00Z'));
    const quarter = CronSpec.parse('*/15 * * * *', 'UTC');
    expect(quarter.next(d('2026-03-10T23:50:00Z'))).toEqual(d('2026-03-11T00:00:00Z'));
    expect(quarter.previous(d('2026-03-10T00:07:00Z'))).toEqual(d('2026-03-10T00:00:00Z'));
  });

  it('a local time that DST skips is not an occurrence; the next real one is', () => {
    // Europe/Berlin jumps from 02:00 to 03:00 on 2026-03-29.
    const spec = CronSpec.parse('30 2 * * *', 'Europe/Berlin');
    expect(spec.next(d('2026-03-28T12:00:00Z'))).toEqual(d('2026-03-30T00:30:00Z'));
  });

  it('a local time that DST repeats is one occurrence, the first', () => {
    // Europe/Berlin goes back from 03:00 to 02:00 on 2026-10-25.
    const spec = CronSpec.parse('30 2 * * *', 'Europe/Berlin');
    expect(spec.next(d('2026-10-24T12:00:00Z'))).toEqual(d('2026-10-25T00:30:00Z'));
    expect(spec.next(d('2026-10-25T00:30:00Z'))).toEqual(d('2026-10-26T01:30:00Z'));
  });

  it.each([
    ['30 2 * * *', 'Europe/Berlin', '2026-03-28T23:00:00Z'],
    ['30 2 * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z'],
    ['*/20 1-3 * * *', 'America/New_York', '2026-03-08T05:00:00Z'],
  ])('matches, next and previous agree minute by minute: %s in %s from %s', (expr, zone, from) => {
    const spec = CronSpec.parse(expr, zone);
    const start = d(from).getTime();
    for (let minute = start; minute < start + 4 * 3_600_000; minute += 60_000) {
      const at = new Date(minute);
      const isNext = spec.next(new Date(minute - 60_000))?.getTime() === minute;
      const isPrevious = spec.previous(at)?.getTime() === minute;
      expect([spec.matches(at), isNext, isPrevious]).toEqual([isNext, isNext, isNext]);
    }
  });

  it('gives up (null) for an expression with no occurrence within the limit', () => {
    const leap = CronSpec.parse('0 0 29 2 *', 'UTC');
    expect(leap.next(d('2026-03-01T00:00:00Z'))).toBeNull(); // Feb 29 2028 is beyond 366 days
    expect(leap.next(d('2026-03-01T00:00:00Z'), 800)).toEqual(d('2028-02-29T00:00:00Z'));
  });

  it.each(['* * * *', '0 0 6 * * *', '61 * * * *', 'every day', ''])('refuses %j', (expr) => {
    expect(() => CronSpec.parse(expr, 'UTC')).toThrow(RangeError);
  });
});

describe('SCHEDULE_* configuration', () => {
  it('defaults, "off", and extra spaces', () => {
    const c = loadConfig({ SCHEDULE_SNAPSHOT: 'OFF', SCHEDULE_BANK_CODES: ' 0  3 * * * ' });
    expect(c.SCHEDULE_RECONCILE).toBe('*/15 * * * *');
    expect(c.SCHEDULE_DAILY).toBe('0 6 * * *');
    expect(c.SCHEDULE_SNAPSHOT).toBeNull();
    expect(c.SCHEDULE_BANK_CODES).toBe('0 3 * * *');
    expect(c.SCHEDULE_SHUTDOWN_TIMEOUT_MS).toBe(30_000);
  });

  it('an invalid expression is refused at load, naming the variable', () => {
    let err: unknown;
    try {
      loadConfig({ SCHEDULE_DAILY: '0 25 * * *', SCHEDULE_RECONCILE: '*/15 * * *' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toMatch(/SCHEDULE_DAILY: expected a 5-field cron expression.*"0 25 \* \* \*"/);
    expect(message).toMatch(/SCHEDULE_RECONCILE: expected a 5-field cron expression/);
  });
});
