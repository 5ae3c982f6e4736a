import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { CronSpec } from '../src/schedule/cron.ts';
import { Scheduler, type JobRunContext, type JobRunner } from '../src/schedule/scheduler.ts';
import type { Schedules, ScheduledJobName } from '../src/schedule/schedules.ts';
import { silentLogger } from '../src/log/logger.ts';

const ZONE = 'Asia/Kolkata';
const schedules = (over: Partial<Schedules> = {}): Schedules => ({
  reconcile: CronSpec.parse('*/15 * * * *', ZONE),
  snapshot: CronSpec.parse('0 * * * *', ZONE),
  'bank-codes': CronSpec.parse('30 2 * * *', ZONE),
  daily: CronSpec.parse('0 6 * * *', ZONE),
  ...over,
});

/** Fake jobs that record each call; `hold` makes a job wait until released. */
function fakeJobs() {
  const calls: Array<{ job: ScheduledJobName } & Pick<JobRunContext, 'scheduledFor' | 'reason' | 'date'>> = [];
  const held = new Map<ScheduledJobName, () => void>();
  const hold = new Set<ScheduledJobName>();
  const signals: AbortSignal[] = [];
  const runner =
    (job: ScheduledJobName): JobRunner =>
    async (ctx) => {
      calls.push({ job, scheduledFor: ctx.scheduledFor, reason: ctx.reason, date: ctx.date });
      signals.push(ctx.signal);
      if (hold.has(job)) await new Promise<void>((resolve) => held.set(job, resolve));
      return { status: 'completed', exitCode: 0 };
    };
  const runners = {
    reconcile: runner('reconcile'),
    snapshot: runner('snapshot'),
    'bank-codes': runner('bank-codes'),
    daily: runner('daily'),
  };
  return { calls, hold, held, signals, runners };
}

const local = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toJSDate();

describe('Scheduler with a controlled clock', () => {
  it('fires each job at its times over a whole day, one tick per minute', async () => {
    const jobs = fakeJobs();
    const scheduler = new Scheduler({ schedules: schedules(), runners: jobs.runners, logger: silentLogger });
    const start = local('2026-03-10T00:00');
    for (let m = 0; m < 24 * 60; m++) {
      scheduler.tick(new Date(start.getTime() + m * 60_000 + 250)); // node-cron may fire a little late
      await scheduler.idle();
    }
    const times = (job: ScheduledJobName) =>
      jobs.calls.filter((c) => c.job === job).map((c) => DateTime.fromJSDate(c.scheduledFor, { zone: ZONE }).toFormat('HH:mm'));
    expect(times('reconcile')).toHaveLength(96);
    expect(times('reconcile').slice(0, 3)).toEqual(['00:00', '00:15', '00:30']);
    expect(times('snapshot')).toHaveLength(24);
    expect(times('bank-codes')).toEqual(['02:30']);
    expect(times('daily')).toEqual(['06:00']);
    expect(jobs.calls.every((c) => c.reason === 'scheduled')).toBe(true);
  });

  it('tick returns what it started; a job switched off never runs', async () => {
    const jobs = fakeJobs();
    const scheduler = new Scheduler({ schedules: schedules({ snapshot: null }), runners: jobs.runners, logger: silentLogger });
    expect(scheduler.tick(local('2026-03-10T06:00'))).toEqual(['reconcile', 'daily']);
    expect(scheduler.tick(local('2026-03-10T06:01'))).toEqual([]);
    await scheduler.idle();
    expect(jobs.calls.map((c) => c.job)).toEqual(['reconcile', 'daily']);
  });

  it('never two runs of one job at once: an occurrence while the previous run is in flight is skipped', async () => {
    const jobs = fakeJobs();
    jobs.hold.add('reconcile');
    const scheduler = new Scheduler({ schedules: schedules(), runners: jobs.runners, logger: silentLogger });
    expect(scheduler.tick(local('2026-03-10T10:15'))).toEqual(['reconcile']);
    await Promise.resolve();
    expect(scheduler.tick(local('2026-03-10T10:30'))).toEqual([]);
    expect(scheduler.running()).toEqual(['reconcile']);
    jobs.held.get('reconcile')!();
    await scheduler.idle();
    jobs.hold.clear();
    expect(scheduler.tick(local('2026-03-10T10:45'))).toEqual(['reconcile']);
    await scheduler.idle();
    expect(jobs.calls.map((c) => DateTime.fromJSDate(c.scheduledFor, { zone: ZONE }).toFormat('HH:mm'))).toEqual(['10:15', '10:45']);
  });

  it("an occurrence skipped for a run still in flight runs the job's in-flight check (one at a time), not the job", async () => {
    const jobs = fakeJobs();
    jobs.hold.add('reconcile');
    const checked: string[] = [];
    let finishCheck!: () => void;
    const scheduler = new Scheduler({
      schedules: schedules({ snapshot: null }),
      runners: jobs.runners,
      logger: silentLogger,
      inFlightChecks: {
        reconcile: async (ctx) => {
          checked.push(DateTime.fromJSDate(ctx.scheduledFor, { zone: ZONE }).toFormat('HH:mm'));
          await new Promise<void>((resolve) => (finishCheck = resolve));
        },
      },
    });
    expect(scheduler.tick(local('2026-03-10T10:15'))).toEqual(['reconcile']);
    await Promise.resolve();
    expect(scheduler.tick(local('2026-03-10T10:30'))).toEqual([]);
    // A check still running (a database that does not answer) is not started again.
    expect(scheduler.tick(local('2026-03-10T10:45'))).toEqual([]);
    expect(checked).toEqual(['10:30']);
    finishCheck();
    await new Promise((r) => setImmediate(r));
    expect(scheduler.tick(local('2026-03-10T11:00'))).toEqual([]);
    expect(checked).toEqual(['10:30', '11:00']);
    finishCheck();
    jobs.held.get('reconcile')!();
    await scheduler.idle();
    expect(jobs.calls.map((c) => c.job)).toEqual(['reconcile']);
  });

  it('the same occurrence is never run twice: a repeated tick, or a tick after its catch-up', async () => {
    const jobs = fakeJobs();
    const scheduler = new Scheduler({ schedules: schedules({ snapshot: null }), runners: jobs.runners, logger: silentLogger });
    expect(scheduler.catchUp([{ job: 'daily', scheduledFor: local('2026-03-10T06:00'), date: '2026-03-09' }])).toEqual(['daily']);
    await scheduler.idle();
    expect(scheduler.tick(local('2026-03-10T06:00'))).toEqual(['reconcile']);
    expect(scheduler.tick(local('2026-03-10T06:00:30'))).toEqual([]);
    await scheduler.idle();
    expect(jobs.calls).toEqual([
      { job: 'daily', scheduledFor: local('2026-03-10T06:00'), reason: 'catch-up', date: '2026-03-09' },
      { job: 'reconcile', scheduledFor: local('2026-03-10T06:00'), reason: 'scheduled', date: undefined },
    ]);
  });

  it('a job that throws is logged and does not stop the others or the next occurrence', async () => {
    const jobs = fakeJobs();
    let n = 0;
    const runners = {
      ...jobs.runners,
      snapshot: async () => (n++ === 0 ? Promise.reject(new Error('database lost')) : { status: 'completed', exitCode: 0 }),
    };
    const scheduler = new Scheduler({ schedules: schedules(), runners, logger: silentLogger });
    expect(scheduler.tick(local('2026-03-10T10:00'))).toEqual(['reconcile', 'snapshot']);
    await scheduler.idle();
    expect(scheduler.tick(local('2026-03-10T11:00'))).toEqual(['reconcile', 'snapshot']);
    await scheduler.idle();
    expect(n).toBe(2);
  });

  it("stop: takes no new runs, aborts the running job's signal, waits for it", async () => {
    const jobs = fakeJobs();
    jobs.hold.add('daily');
    const scheduler = new Scheduler({ schedules: schedules(), runners: jobs.runners, logger: silentLogger });
    scheduler.tick(local('2026-03-10T06:00'));
    await Promise.resolve();
    // The fake job ends when told to stop, as the reconcile does at its next batch.
    jobs.signals.at(-1)!.addEventListener('abort', () => jobs.held.get('daily')!());
    const stopped = await scheduler.stop(60_000);
    expect(stopped).toEqual({ finished: true, running: [] });
    expect(jobs.signals.every((s) => s.aborted)).toBe(true);
    expect(scheduler.tick(local('2026-03-10T06:15'))).toEqual([]);
    expect(scheduler.catchUp([{ job: 'snapshot', scheduledFor: local('2026-03-10T06:00') }])).toEqual([]);
  });

  it('stop: a job that ignores the signal is reported still running at the timeout', async () => {
    const jobs = fakeJobs();
    jobs.hold.add('snapshot');
    const scheduler = new Scheduler({ schedules: schedules(), runners: jobs.runners, logger: silentLogger });
    scheduler.tick(local('2026-03-10T07:00'));
    const stopped = await scheduler.stop(0);
    expect(stopped.finished).toBe(false);
    expect(stopped.running).toContain('snapshot');
    jobs.held.get('snapshot')!();
    await scheduler.idle();
  });
});
