import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';
import { withJobLock } from '../src/db/locks.ts';
import { CronSpec } from '../src/schedule/cron.ts';
import { Scheduler, type JobRunner } from '../src/schedule/scheduler.ts';
import { runDaily } from '../src/schedule/daily.ts';
import type { ScheduledJobName } from '../src/schedule/schedules.ts';
import { silentLogger } from '../src/log/logger.ts';

const NEEDS = 'two schedulers on separate connection pools contend for one advisory lock';

describe.skipIf(requiresServer(NEEDS))('two schedulers on one database', () => {
  let t: TestDatabase;
  let other: Db;
  beforeAll(async () => {
    t = await createTestDatabase('sched_lock');
    other = await openDatabase(t.config, { applicationName: 'payrecon-test-second-scheduler' });
  });
  afterAll(async () => {
    await other?.close();
    await t?.drop();
  });

  const every = (expr: string) => CronSpec.parse(expr, 'UTC');
  const schedules = { reconcile: every('* * * * *'), snapshot: null, 'bank-codes': null, daily: null };

  it('never run the same job at once: one runs, the other reports a skip', async () => {
    let inside = 0;
    let maxInside = 0;
    let ran = 0;
    const reports: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const someoneEntered = new Promise<void>((r) => (entered = r));
    // A slow job under the real job lock, on whichever pool its scheduler was given.
    const slowJob =
      (db: Db): JobRunner =>
      async () => {
        const locked = await withJobLock(db, 'reconcile', async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          ran++;
          entered();
          await gate;
          inside--;
        });
        const status = locked.acquired ? 'completed' : 'skipped';
        reports.push(status);
        return { status, exitCode: 0 };
      };
    const runners = (db: Db) => ({ reconcile: slowJob(db) }) as unknown as Record<ScheduledJobName, JobRunner>;
    const a = new Scheduler({ schedules, runners: runners(t.db), logger: silentLogger });
    const b = new Scheduler({ schedules, runners: runners(other), logger: silentLogger });

    const minute = new Date('2026-03-10T10:00:00Z');
    expect(a.tick(minute)).toEqual(['reconcile']);
    expect(b.tick(minute)).toEqual(['reconcile']);
    await someoneEntered;
    // The loser does not wait for the winner: it has already reported its skip.
    while (reports.length < 1) await new Promise((r) => setImmediate(r));
    expect(reports).toEqual(['skipped']);
    release();
    await Promise.all([a.idle(), b.idle()]);
    expect(reports.sort()).toEqual(['completed', 'skipped']);
    expect(ran).toBe(1);
    expect(maxInside).toBe(1);
  });

  it('the daily of one date is done once even when both schedulers fire it', async () => {
    let reconciles = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const deps = (db: Db) => ({
      db,
      logger: silentLogger,
      now: () => new Date(),
      signal: new AbortController().signal,
      email: false,
      lockRetryMs: 1,
      lockWaitMs: 1,
      reconcileDay: async () => {
        reconciles++;
        await gate;
        return { status: 'completed', runIds: [] };
      },
      reportDay: async () => ({ exitCode: 0, version: 1, unchanged: false, emails: [] }),
    });
    const first = runDaily(deps(t.db), '2026-03-09');
    while (reconciles < 1) await new Promise((r) => setTimeout(r, 5)); // the first holds the daily lock
    const second = await runDaily(deps(other), '2026-03-09');
    release();
    expect([(await first).status, second.status].sort()).toEqual(['completed', 'skipped']);
    // A late scheduler firing after the winner finished finds the date done.
    expect((await runDaily(deps(other), '2026-03-09')).status).toBe('already_done');
    expect(reconciles).toBe(1);
    expect(await t.db.knex('job_runs').where({ job: 'daily' }).count<{ n: string }[]>('* as n')).toEqual([{ n: '1' }]);
  });
});
