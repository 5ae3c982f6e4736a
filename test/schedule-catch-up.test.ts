import { describe, expect, it } from 'vitest';
import { CronSpec } from '../src/schedule/cron.ts';
import { planCatchUp, type CatchUpInput } from '../src/schedule/catch-up.ts';
import type { Schedules } from '../src/schedule/schedules.ts';

const ZONE = 'Asia/Kolkata'; // UTC+05:30, no DST
const spec = (e: string) => CronSpec.parse(e, ZONE);
const SCHEDULES: Schedules = {
  reconcile: spec('*/15 * * * *'),
  snapshot: spec('0 * * * *'),
  'bank-codes': spec('30 2 * * *'),
  daily: spec('0 6 * * *'),
};
// 2026-03-10 09:10 IST
const NOW = new Date('2026-03-10T03:40:00Z');
const at = (iso: string) => new Date(iso);
const ALL_RECENT = {
  reconcile: at('2026-03-10T03:31:00Z'), // 09:01 IST, after the 09:00 occurrence
  snapshot: at('2026-03-10T03:30:05Z'), // 09:00:05 IST
  'bank-codes': at('2026-03-09T21:00:10Z'), // 02:30:10 IST
};

const input = (over: Partial<CatchUpInput>): CatchUpInput => ({
  now: NOW,
  zone: ZONE,
  schedules: SCHEDULES,
  lastStarted: ALL_RECENT,
  dailyDone: new Set(['2026-03-09']),
  reportDates: new Set(['2026-03-09']),
  ...over,
});

describe('planCatchUp (fixed clock: 2026-03-10 09:10 Asia/Kolkata)', () => {
  it.each<[string, Partial<CatchUpInput>, Array<{ job: string; scheduledFor: string; date?: string }>]>([
    ['everything ran on time: nothing to catch up', {}, []],
    [
      'a fresh database: every job, the daily for yesterday',
      { lastStarted: {}, dailyDone: new Set(), reportDates: new Set() },
      [
        { job: 'reconcile', scheduledFor: '2026-03-10T03:30:00.000Z' },
        { job: 'snapshot', scheduledFor: '2026-03-10T03:30:00.000Z' },
        { job: 'bank-codes', scheduledFor: '2026-03-09T21:00:00.000Z' },
        { job: 'daily', scheduledFor: '2026-03-10T00:30:00.000Z', date: '2026-03-09' },
      ],
    ],
    [
      'down since last night: bank-codes (02:30) and the report of yesterday were missed',
      {
        lastStarted: { ...ALL_RECENT, 'bank-codes': at('2026-03-08T21:00:00Z') },
        dailyDone: new Set(['2026-03-08']),
        reportDates: new Set(['2026-03-08']),
      },
      [
        { job: 'bank-codes', scheduledFor: '2026-03-09T21:00:00.000Z' },
        { job: 'daily', scheduledFor: '2026-03-10T00:30:00.000Z', date: '2026-03-09' },
      ],
    ],
    [
      'the daily ran but no report version exists (it failed after the reconcile)',
      { reportDates: new Set() },
      [{ job: 'daily', scheduledFor: '2026-03-10T00:30:00.000Z', date: '2026-03-09' }],
    ],
    [
      'a report exists (finance ran it by hand) but no daily reconcile of the day',
      { dailyDone: new Set() },
      [{ job: 'daily', scheduledFor: '2026-03-10T00:30:00.000Z', date: '2026-03-09' }],
    ],
    [
      'the last reconcile started a second before the 09:00 occurrence',
      { lastStarted: { ...ALL_RECENT, reconcile: at('2026-03-10T03:29:59Z') } },
      [{ job: 'reconcile', scheduledFor: '2026-03-10T03:30:00.000Z' }],
    ],
    [
      'a job switched off is never caught up',
      {
        schedules: { ...SCHEDULES, daily: null, 'bank-codes': null },
        lastStarted: { reconcile: ALL_RECENT.reconcile, snapshot: ALL_RECENT.snapshot },
        dailyDone: new Set(),
      },
      [],
    ],
  ])('%s', (_, over, expected) => {
    const plan = planCatchUp(input(over)).map((c) => ({
      job: c.job,
      scheduledFor: c.scheduledFor.toISOString(),
      ...(c.date ? { date: c.date } : {}),
    }));
    expect(plan).toEqual(expected);
  });

  it("before today's 06:00 the latest daily occurrence is yesterday's, covering the day before", () => {
    const early = new Date('2026-03-09T22:00:00Z'); // 03:30 IST on 03-10
    const plan = planCatchUp(input({ now: early, lastStarted: {}, dailyDone: new Set(), reportDates: new Set() }));
    expect(plan.find((c) => c.job === 'daily')).toMatchObject({ date: '2026-03-08', scheduledFor: new Date('2026-03-09T00:30:00Z') });
  });
});
