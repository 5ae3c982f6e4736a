// What the scheduler says, line by line (exact text): a run's start and end with its counts and the
// next time, a lock wait at info level with its retry, and a missed run caught up at start.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { CronSpec } from '../src/schedule/cron.ts';
import { Scheduler } from '../src/schedule/scheduler.ts';
import type { Schedules } from '../src/schedule/schedules.ts';
import { reconcileThenReport } from '../src/schedule/daily.ts';
import { catchUpLine } from '../src/schedule/lines.ts';

const ZONE = 'Asia/Kolkata';
const local = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toJSDate();

function captureLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}
const flush = () => new Promise((r) => setImmediate(r));

const schedules: Schedules = {
  reconcile: CronSpec.parse('*/15 * * * *', ZONE),
  snapshot: null,
  'bank-codes': null,
  daily: CronSpec.parse('0 6 * * *', ZONE),
};

describe('scheduler lines', () => {
  it('a run: started, then finished with its outcome, counts and the next time', async () => {
    const { logger, lines } = captureLogger();
    const at = local('2026-03-10T10:15');
    const scheduler = new Scheduler({
      schedules,
      zone: ZONE,
      now: () => at,
      logger,
      runners: {
        reconcile: async () => ({ status: 'completed', exitCode: 0, counts: { checked: 30, matched: 28, mismatch: 2 } }),
        snapshot: async () => ({ status: 'completed', exitCode: 0 }),
        'bank-codes': async () => ({ status: 'completed', exitCode: 0 }),
        daily: async () => ({ status: 'skipped', exitCode: 0 }),
      },
    });
    scheduler.tick(at);
    await scheduler.idle();
    scheduler.tick(local('2026-03-10T06:00'));
    await scheduler.idle();
    await flush();
    const msgs = lines.map((l) => l.msg.replace(/in \d+\.\d s/, 'in X s'));
    expect(msgs).toEqual([
      'reconcile started (scheduled for 2026-03-10 10:15:00 +05:30)',
      'reconcile finished: completed, checked 30, matched 28, mismatch 2, in X s; next 2026-03-10 10:30:00 +05:30',
      'daily started (scheduled for 2026-03-10 06:00:00 +05:30)',
      'daily finished: skipped (another process holds its lock), in X s; next 2026-03-11 06:00:00 +05:30',
    ]);
    // The skip is information, not an error.
    expect(lines.every((l) => l.level === 30)).toBe(true);
  });

  it('a failed run is an error line naming why, still with the next time', async () => {
    const { logger, lines } = captureLogger();
    const at = local('2026-03-10T10:15');
    const scheduler = new Scheduler({
      schedules,
      zone: ZONE,
      now: () => at,
      logger,
      runners: {
        reconcile: async () => {
          throw new Error('provider refused the credentials');
        },
        snapshot: async () => ({ status: 'completed', exitCode: 0 }),
        'bank-codes': async () => ({ status: 'completed', exitCode: 0 }),
        daily: async () => ({ status: 'completed', exitCode: 0 }),
      },
    });
    scheduler.tick(at);
    await scheduler.idle();
    await flush();
    expect(lines[1].level).toBe(50);
    expect(lines[1].msg).toMatch(
      /^reconcile finished: failed \(provider refused the credentials\), in \d+\.\d s; next 2026-03-10 10:30:00 \+05:30$/,
    );
  });

  it('the daily waiting for a reconcile lock held by its own scheduler: info, with the holder and the retry', async () => {
    const { logger, lines } = captureLogger();
    let tries = 0;
    const result = await reconcileThenReport(
      {
        db: undefined as never,
        logger,
        now: () => new Date(),
        signal: new AbortController().signal,
        lockRetryMs: 30_000,
        lockWaitMs: 3_600_000,
        sleep: async () => undefined,
        reconcileDay: async () =>
          ++tries === 1
            ? { status: 'skipped', runIds: [], lockHolder: 'snapshot run 41 (pid 7 on host-a, 12 s)' }
            : { status: 'completed', runIds: ['42'] },
        reportDay: async () => ({ exitCode: 0, version: 1, unchanged: false, emails: [] }),
      },
      '2026-03-09',
      logger,
    );
    await flush();
    expect(result.status).toBe('completed');
    const wait = lines.find((l) => l.msg.startsWith('daily 2026-03-09: waiting'))!;
    expect(wait.msg).toBe(
      'daily 2026-03-09: waiting for the reconcile lock (held by snapshot run 41 (pid 7 on host-a, 12 s)); retrying in 30 s',
    );
    expect(wait.level).toBe(30);
    expect(lines.every((l) => l.level < 50)).toBe(true);
  });

  it('catch-up at start names the job, the date and since when', () => {
    expect(catchUpLine({ job: 'reconcile', scheduledFor: local('2026-03-10T09:45') }, ZONE)).toBe(
      'catch-up: reconcile missed since 2026-03-10 09:45:00 +05:30; running it now',
    );
    expect(catchUpLine({ job: 'daily', scheduledFor: local('2026-03-10T06:00'), date: '2026-03-09' }, ZONE)).toBe(
      'catch-up: daily for 2026-03-09 missed since 2026-03-10 06:00:00 +05:30; running it now',
    );
  });
});
