import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobHelpers } from 'graphile-worker';
import type { Config } from '../src/config/config.ts';
import { accountFor } from '../src/config/accounts.ts';
import { withJobLock } from '../src/db/locks.ts';
import { queueSchemaFor } from '../src/db/queue.ts';
import { completedDailyDates } from '../src/db/schedule-runs.ts';
import { silentLogger } from '../src/log/logger.ts';
import { createAccountClient } from '../src/provider/from-config.ts';
import { runDaily } from '../src/schedule/daily.ts';
import type { JobRunContext } from '../src/schedule/scheduler.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { TASKS } from '../src/services/queue-plan.ts';
import { queueRunners } from '../src/services/queue-runners.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { jobRunners } from '../src/services/schedule-runners.ts';
import { forEachAccount } from '../src/services/per-account.ts';
import { workerTasks } from '../src/services/worker-tasks.ts';
import { installQueue } from '../src/worker/install.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { seedAccountOrders, startTwoAccounts, type TwoAccounts } from './helpers/two-accounts.ts';

// Two provider accounts against one sandbox over HTTP: every scheduled job that belongs to an account runs
// (in-process) or is enqueued (SCHEDULE_MODE=queue) once per account, each under its own lock and job key;
// bank codes and prune stay one job of the deployment.

const ids = ['in-main', 'ng-brand'] as const;
const ctx = (over: Partial<JobRunContext> = {}): JobRunContext => ({
  scheduledFor: new Date('2026-11-27T10:00:00Z'),
  reason: 'scheduled',
  signal: new AbortController().signal,
  logger: silentLogger,
  ...over,
});

describe('scheduled work per account, in-process', () => {
  let t: TestDatabase;
  let config: Config;
  let accounts: TwoAccounts;

  beforeAll(async () => {
    t = await createTestDatabase('schedule_accounts');
    accounts = await startTwoAccounts(t);
    config = accounts.config;
    await seedAccountOrders(t, config, 'in-main', 1);
    await seedAccountOrders(t, config, 'ng-brand', 2);
    await new SandboxControl(accounts.sandbox.url).advanceClock(2_000);
  });
  afterAll(async () => {
    await accounts?.close();
    await t?.drop();
  });

  const runsOf = async (job: string) =>
    (await t.db.knex('job_runs').where({ job }).select('account_id', 'status').orderBy('id')) as Array<{
      account_id: string;
      status: string;
    }>;

  it('the reconcile and snapshot schedules run once for each account, each with its own run', async () => {
    const runners = jobRunners({ config, db: t.db });
    const rec = await runners.reconcile(ctx());
    expect(rec.exitCode).toBe(0);
    expect(Object.keys(rec.detail!.accounts as object).sort()).toEqual([...ids]);
    expect(rec.counts!.checked).toBe(10);
    expect((await runsOf('reconcile')).map((r) => r.account_id).sort()).toEqual([...ids]);

    const snap = await runners.snapshot(ctx());
    expect(snap).toMatchObject({ status: 'completed', exitCode: 0 });
    expect((await runsOf('snapshot')).map((r) => r.account_id).sort()).toEqual([...ids]);
  });

  it("one account's failure is its own: the other's run finishes, and the occurrence reports the failure", async () => {
    const finished: string[] = [];
    const report = await forEachAccount(config, undefined, async (account) => {
      if (account === 'in-main') throw new Error('provider unreachable');
      finished.push(account!);
      return { status: 'completed', exitCode: 0, counts: { checked: 3 } };
    });
    expect(finished).toEqual(['ng-brand']);
    expect(report).toEqual({
      status: 'failed',
      exitCode: 2,
      counts: { checked: 3 },
      detail: {
        accounts: {
          'in-main': { status: 'failed', exitCode: 2, error: 'provider unreachable' },
          'ng-brand': { status: 'completed', exitCode: 0 },
        },
      },
    });
  });

  it("one account's reconcile lock does not hold up the other's run; its own sweep skips", async () => {
    const held = await withJobLock(t.db, 'reconcile:in-main', async () => {
      const other = await reconcileJob({ account: 'ng-brand', progress: false }, { config, db: t.db, logger: silentLogger });
      const same = await reconcileJob({ account: 'in-main', progress: false }, { config, db: t.db, logger: silentLogger });
      return { other: other.outcome.status, same: same.outcome.status };
    });
    expect(held).toEqual({ acquired: true, result: { other: 'completed', same: 'skipped' } });
  });

  it("the daily runs each account's day under its own lock, once", async () => {
    const reported: string[] = [];
    const daily = (account: string) =>
      runDaily(
        {
          db: t.db,
          logger: silentLogger,
          now: () => new Date(),
          signal: new AbortController().signal,
          email: false,
          lockRetryMs: 10,
          lockWaitMs: 1_000,
          account,
          reconcileDay: dayJobs({ config, logger: silentLogger, db: t.db }, { account }).reconcileDay,
          // The report of one account is the report job's (written per account there); here only that it is asked for.
          reportDay: async (date) => {
            reported.push(`${account}:${date}`);
            return { exitCode: 0, version: 1, unchanged: false, emails: [] };
          },
        },
        '2026-11-26',
      );
    // One account's daily in flight (its lock held) leaves the other's free.
    const whileHeld = await withJobLock(t.db, 'daily:in-main', () => daily('ng-brand'));
    expect(whileHeld.result!.status).toBe('completed');
    expect((await daily('in-main')).status).toBe('completed');
    expect((await daily('in-main')).status).toBe('already_done');
    expect(reported.sort()).toEqual(['in-main:2026-11-26', 'ng-brand:2026-11-26']);
    // A day is caught up until every account's daily is done.
    expect(await completedDailyDates(t.db.knex, '2026-11-01', [...ids])).toEqual(new Set(['2026-11-26']));
    expect(await completedDailyDates(t.db.knex, '2026-11-01', [...ids, 'third'])).toEqual(new Set());
    const runs = await t.db.knex('job_runs').where({ job: 'daily', status: 'completed' }).select('account_id');
    expect(runs.map((r) => r.account_id).sort()).toEqual([...ids]);
    const dayRuns = await t.db
      .knex('job_runs')
      .where({ job: 'reconcile' })
      .whereRaw(`params->'selection'->>'label' = '2026-11-26'`)
      .select('account_id');
    expect(dayRuns.map((r) => r.account_id).sort()).toEqual([...ids]);
  });
});

describe.skipIf(requiresServer('the worker queue lives in a Postgres server'))('scheduled work per account, queued', () => {
  let t: TestDatabase;
  let config: Config;
  let accounts: TwoAccounts;

  beforeAll(async () => {
    t = await createTestDatabase('schedule_accounts_queue');
    accounts = await startTwoAccounts(t);
    config = { ...accounts.config, SCHEDULE_MODE: 'queue' };
    await installQueue(t.db, t.url!, silentLogger);
  });
  afterAll(async () => {
    await accounts?.close();
    await t?.drop();
  });

  const jobKeys = async (task: string) =>
    (
      (await t.db.knex.withSchema(queueSchemaFor(t.db.schema)).from('jobs').where({ task_identifier: task }).select('key')) as Array<{
        key: string;
      }>
    )
      .map((j) => j.key)
      .sort();

  it('two schedulers firing the same occurrence enqueue snapshot and daily once per account, bank codes and prune once', async () => {
    const a = queueRunners({ config, db: t.db });
    const b = queueRunners({ config, db: t.db });
    const due = '2026-11-27T10:00:00.000Z';
    for (const job of ['snapshot', 'daily', 'bank-codes', 'prune'] as const) {
      const [first, second] = await Promise.all([a[job](ctx()), b[job](ctx())]);
      // Between them every job was enqueued once: what one planned, the other found planned.
      const jobs = [first, second].reduce((n, r) => n + (r.status === 'enqueued' ? (r.counts!.jobs ?? 0) : 0), 0);
      expect(jobs, job).toBe(job === 'snapshot' || job === 'daily' ? 2 : 1);
      expect(await a[job](ctx())).toMatchObject({ status: 'skipped', exitCode: 0 });
    }
    expect(await jobKeys(TASKS.snapshot)).toEqual(ids.map((id) => `snapshot:${id}:${due}`));
    expect(await jobKeys(TASKS.daily)).toEqual(ids.map((id) => `daily:${id}:2026-11-26`));
    expect(await jobKeys(TASKS.bankCodes)).toEqual([`bank_codes:*:${due}`]);
    expect(await jobKeys(TASKS.prune)).toEqual([`prune:*:${due}`]);
  });

  it("a worker runs a queued snapshot for its account alone, with that account's client", async () => {
    const clients = new Map<string, Awaited<ReturnType<typeof createAccountClient>>>();
    const tasks = workerTasks({
      config,
      db: t.db,
      logger: silentLogger,
      clientFor: async (id) => {
        const client = clients.get(id) ?? (await createAccountClient(config, accountFor(config, id), { logger: silentLogger }));
        clients.set(id, client);
        return client;
      },
      signal: new AbortController().signal,
      instance: 'test-worker',
    });
    const helpers = { job: { id: '1', attempts: 1 } } as unknown as JobHelpers;
    try {
      await tasks[TASKS.snapshot]!({ account: 'ng-brand', scheduledFor: '2026-11-27T10:00:00.000Z' }, helpers);
      const runs = await t.db.knex('job_runs').where({ job: 'snapshot' }).select('account_id', 'status');
      expect(runs).toEqual([{ account_id: 'ng-brand', status: 'completed' }]);
      // A job of an account no longer configured runs nothing (never every account instead).
      await tasks[TASKS.snapshot]!({ account: 'gone', scheduledFor: '2026-11-27T10:00:00.000Z' }, helpers);
      expect(await t.db.knex('job_runs').where({ job: 'snapshot' }).select('account_id')).toEqual([{ account_id: 'ng-brand' }]);
    } finally {
      for (const c of clients.values()) await c.close();
    }
  });
});
