import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { runDaily, type DailyDeps, type DayReconcile } from '../src/schedule/daily.ts';
import { silentLogger } from '../src/log/logger.ts';

describe('daily run (reconcile of the day, then its report) on a real database', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('sched_daily');
  });
  afterAll(() => t?.drop());
  beforeEach(async () => {
    await t.db.knex('job_runs').where({ job: 'daily' }).delete();
  });

  /** A fake clock that the fake sleep advances: no real waiting. */
  function deps(reconciles: DayReconcile[], over: Partial<DailyDeps> = {}) {
    let clock = new Date('2026-03-10T00:30:00Z').getTime();
    const calls: string[] = [];
    const d: DailyDeps = {
      db: t.db,
      logger: silentLogger,
      now: () => new Date(clock),
      signal: new AbortController().signal,
      email: true,
      lockRetryMs: 30_000,
      lockWaitMs: 60_000,
      sleep: async (ms) => {
        calls.push(`sleep ${ms}`);
        clock += ms;
      },
      reconcileDay: async (date) => {
        calls.push(`reconcile ${date}`);
        return reconciles.shift() ?? { status: 'completed', runIds: ['1'] };
      },
      reportDay: async (date) => {
        calls.push(`report ${date}`);
        return { exitCode: 0, version: 1, unchanged: false, emails: [{ status: 'sent' }] };
      },
      ...over,
    };
    return { d, calls };
  }

  it('records a completed daily run with its counts; the same date is not done twice', async () => {
    const { d, calls } = deps([]);
    const first = await runDaily(d, '2026-03-09');
    expect(first).toMatchObject({ status: 'completed', date: '2026-03-09', error: null });
    expect(calls).toEqual(['reconcile 2026-03-09', 'report 2026-03-09']);
    const row = await t.db.knex('job_runs').where({ id: first.runId }).first();
    expect(row).toMatchObject({
      job: 'daily',
      status: 'completed',
      params: { date: '2026-03-09', email: true },
      counts: { reconcileRuns: 1, reportVersion: 1, emailsSent: 1 },
    });

    const again = await runDaily(d, '2026-03-09');
    expect(again.status).toBe('already_done');
    expect(calls).toHaveLength(2);
  });

  it('waits while another reconcile holds the lock, then runs the day', async () => {
    const skipped = { status: 'skipped', runIds: [] };
    const { d, calls } = deps([skipped, skipped]);
    const result = await runDaily(d, '2026-03-08');
    expect(result.status).toBe('completed');
    expect(calls).toEqual([
      'reconcile 2026-03-08',
      'sleep 30000',
      'reconcile 2026-03-08',
      'sleep 30000',
      'reconcile 2026-03-08',
      'report 2026-03-08',
    ]);
  });

  it('gives up after lockWaitMs: failed, no report, so the next start catches the day up', async () => {
    const skipped = { status: 'skipped', runIds: [] };
    const { d, calls } = deps([skipped, skipped, skipped, skipped]);
    const result = await runDaily(d, '2026-03-07');
    expect(result.status).toBe('failed');
    expect(calls.filter((c) => c.startsWith('report'))).toEqual([]);
    const row = await t.db.knex('job_runs').where({ id: result.runId }).first();
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/held the lock/);
  });

  it('a reconcile interrupted by shutdown leaves the daily interrupted and writes no report', async () => {
    const stop = new AbortController();
    const { d, calls } = deps([], {
      signal: stop.signal,
      reconcileDay: async () => {
        stop.abort();
        return { status: 'interrupted', runIds: ['7'] };
      },
    });
    const result = await runDaily(d, '2026-03-06');
    expect(result.status).toBe('interrupted');
    expect(calls).toEqual([]);
    expect((await t.db.knex('job_runs').where({ id: result.runId }).first()).status).toBe('interrupted');
  });

  it('a daily row left running by a dead process is closed as interrupted by the next one', async () => {
    const [dead] = await t.db
      .knex('job_runs')
      .insert({ job: 'daily', params: JSON.stringify({ date: '2026-03-05' }) })
      .returning('id');
    const { d } = deps([]);
    expect((await runDaily(d, '2026-03-05')).status).toBe('completed');
    expect((await t.db.knex('job_runs').where({ id: dead.id }).first()).status).toBe('interrupted');
  });
});
