import { describe, expect, it } from 'vitest';
import { cronInWords } from '../src/schedule/cron-words.ts';
import { schedulerSeemsAlive } from '../src/status/scheduler-alive.ts';
import { ENV_VARS } from '../src/config/schema.ts';

describe('cron in words', () => {
  it('says the SCHEDULE_* defaults in words', () => {
    expect(cronInWords('*/15 * * * *')).toBe('every 15 minutes');
    expect(cronInWords('0 * * * *')).toBe('every hour, on the hour');
    expect(cronInWords('30 2 * * *')).toBe('daily at 02:30');
    expect(cronInWords('0 6 * * *')).toBe('daily at 06:00');
    expect(cronInWords('0 4 * * 0')).toBe('weekly on Sunday at 04:00');
  });

  it('every default of a SCHEDULE_* setting reads as words, not as cron', () => {
    for (const [name, spec] of Object.entries(ENV_VARS)) {
      const d = (spec as { default?: unknown }).default;
      if (!name.startsWith('SCHEDULE_') || typeof d !== 'string' || !/\*/.test(d)) continue;
      expect(cronInWords(d), name).not.toBe(d);
    }
  });

  it('other common shapes, and anything else as written', () => {
    expect(cronInWords('* * * * *')).toBe('every minute');
    expect(cronInWords('*/1 * * * *')).toBe('every minute');
    expect(cronInWords('5 * * * *')).toBe('every hour at :05');
    expect(cronInWords('0 */6 * * *')).toBe('every 6 hours at :00');
    expect(cronInWords('45 7 * * 1-5')).toBe('weekdays at 07:45');
    expect(cronInWords('0 1 1 * *')).toBe('monthly on day 1 at 01:00');
    expect(cronInWords('off')).toBe('off');
    expect(cronInWords('0 6 * 1 *')).toBe('0 6 * 1 *');
    expect(cronInWords('0,30 6 * * *')).toBe('0,30 6 * * *');
    expect(cronInWords('@daily')).toBe('@daily');
  });
});

describe('is a scheduler alive', () => {
  const now = new Date('2026-11-22T10:07:00Z');
  const job = (schedule: string | null, startedAt: string | null) => ({
    schedule,
    lastRun: startedAt ? { startedAt: new Date(startedAt), heartbeatAt: null } : null,
  });
  it('yes when a scheduled job started at its latest or the occurrence before', () => {
    expect(schedulerSeemsAlive([job('*/15 * * * *', '2026-11-22T10:00:02Z')], 'UTC', now)).toBe(true);
    expect(schedulerSeemsAlive([job('*/15 * * * *', '2026-11-22T09:45:01Z')], 'UTC', now)).toBe(true);
  });
  it('no when it missed two ticks, never ran, or nothing is scheduled', () => {
    expect(schedulerSeemsAlive([job('*/15 * * * *', '2026-11-22T09:20:00Z')], 'UTC', now)).toBe(false);
    expect(schedulerSeemsAlive([job('*/15 * * * *', null)], 'UTC', now)).toBe(false);
    expect(schedulerSeemsAlive([job('off', '2026-11-22T10:00:00Z'), job(null, '2026-11-22T10:00:00Z')], 'UTC', now)).toBe(false);
  });
});
