// SCHEDULE_MODE=queue around the workers: what the scheduler's runners enqueue (once per occurrence),
// the queue's gauges on /metrics, and `payrecon doctor`'s look at the queue and its live workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { waitFor } from './helpers/cli.ts';
import { silentLogger } from '../src/log/logger.ts';
import { PayreconMetrics } from '../src/metrics/metrics.ts';
import { runDoctor } from '../src/doctor/run-doctor.ts';
import { queueRunners } from '../src/services/queue-runners.ts';
import { workerJob } from '../src/services/worker.ts';
import { installQueue } from '../src/worker/install.ts';
import { claimBatch, finishBatch, queueSchemaFor } from '../src/db/queue.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';

describe.skipIf(requiresServer('the worker queue lives in a Postgres server'))('SCHEDULE_MODE=queue: enqueue, gauges, doctor', () => {
  let world: World;
  let runId = '';
  const env = () => ({ ...world.env, SCHEDULE_MODE: 'queue', WORKER_LOCK_TIMEOUT_SECONDS: '5' });

  beforeAll(async () => {
    // The snapshot job enqueued below runs on the worker beside the sweep; its open-order check would check the
    // same orders, and a batch finding its orders no longer due checks none: off, so the sweep alone checks all 20.
    world = await createWorld('worker_queue', { env: { SCHEDULE_MODE: 'queue', RECON_BATCH_SIZE: '7', SNAPSHOT_OPEN_CHECK: 'off' } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 15, payouts: 5, seed: 5 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  const scrape = async () => {
    const metrics = new PayreconMetrics({ defaultMetrics: false });
    await metrics.refreshFromDatabase(world.t.db.knex, { timeoutMs: 5_000, queueSchema: queueSchemaFor(world.t.db.schema) });
    return (await metrics.render()).body;
  };

  it('doctor: the queue schema missing is a failure naming what installs it', async () => {
    const report = await runDoctor(env());
    const check = report.checks.find((c) => c.name === 'worker queue')!;
    expect(check).toMatchObject({ status: 'failed', detail: 'schema payrecon_worker is not installed' });
    expect(check.fix).toContain('payrecon worker');
  });

  it("the scheduler's runners enqueue each occurrence once; /metrics shows the jobs waiting per task and account", async () => {
    await installQueue(world.t.db, world.t.url!, silentLogger);
    const runners = queueRunners({ config: world.config, db: world.t.db });
    const ctx = {
      scheduledFor: new Date('2026-11-27T10:00:00Z'),
      reason: 'scheduled' as const,
      signal: new AbortController().signal,
      logger: silentLogger,
    };
    const first = await runners.reconcile(ctx);
    // 15 payments and 5 payouts due, in batches of 7: 3 + 1.
    expect(first).toMatchObject({ status: 'enqueued', exitCode: 0, counts: { jobs: 4, runs: 1 } });
    runId = String((first.detail!.runIds as string[])[0]);
    // A run's batches by priority = batch index, so several accounts' sweeps interleave rather than queue behind each other.
    const jobs = await world.t.db.knex
      .withSchema(queueSchemaFor(world.t.db.schema))
      .from('jobs')
      .where({ task_identifier: 'reconcile_batch' })
      .select('key', 'priority');
    expect(jobs.map((j) => [j.key, j.priority]).sort((a, b) => a[1] - b[1])).toEqual(
      [0, 1, 2, 3].map((i) => [`reconcile:default:${runId}:${i}`, i]),
    );
    expect(await runners.reconcile(ctx)).toMatchObject({ status: 'skipped', exitCode: 0 });
    expect(await runners.snapshot(ctx)).toMatchObject({ status: 'enqueued', counts: { jobs: 1 } });
    expect(await runners.snapshot(ctx)).toMatchObject({ status: 'skipped' });

    const text = await scrape();
    expect(text).toContain('payrecon_queue_jobs{task="reconcile_batch",account="default",state="waiting"} 4');
    expect(text).toContain('payrecon_queue_jobs{task="snapshot",account="default",state="waiting"} 1');
  });

  it("a batch's write commits only under its latest claim: a worker presumed dead cannot write a batch handed on", async () => {
    const knex = world.t.db.knex;
    const run = await knex('job_runs').where({ id: runId }).first();
    expect(run.status).toBe('running');
    const t0 = new Date();
    const a = await claimBatch(knex, runId, 0, 'worker-a', t0);
    const b = await claimBatch(knex, runId, 0, 'worker-b', t0);
    expect([a, b]).toEqual([1, 2]);
    // worker-a wakes up and tries to write: refused (its caller rolls the batch's transaction back).
    expect(await knex.transaction((trx) => finishBatch(trx, runId, 0, { workerId: 'worker-a', attempt: 1 }, t0))).toBe(false);
    expect(await knex.transaction((trx) => finishBatch(trx, runId, 0, { workerId: 'worker-b', attempt: 2 }, t0))).toBe(true);
    // Written: a retry of its job finds nothing to do.
    expect(await claimBatch(knex, runId, 0, 'worker-c', t0)).toBeNull();
    // Undone for the worker below, which must then write batch 0 itself (its claim supersedes these).
    await knex('run_batches').where({ run_id: runId, batch: 0 }).update({ done_at: null, done_by: null });
  });

  it('doctor: installed but no live worker fails; with a worker running it is ok, naming it; the worker drains the queue', async () => {
    const before = (await runDoctor(env())).checks.find((c) => c.name === 'worker queue')!;
    expect(before.status).toBe('failed');
    expect(before.detail).toContain('no worker beat');

    let stop!: (reason: string) => void;
    const stopWhen = new Promise<string>((r) => (stop = r));
    let started = false;
    const worker = workerJob(
      { stopWhen, onStarted: () => (started = true) },
      { config: { ...world.config, WORKER_LOCK_TIMEOUT_SECONDS: 5 }, logger: silentLogger },
    );
    try {
      await waitFor(async () => started);
      const after = (await runDoctor(env())).checks.find((c) => c.name === 'worker queue')!;
      expect(after.status).toBe('ok');
      expect(after.detail).toMatch(/1 live worker\(s\): .+ pid \d+/);
      // Every job done: the reconcile run completed, the queue empty.
      await waitFor(async () => (await world.t.db.knex('job_runs').where({ id: runId }).first()).status === 'completed', 30_000);
      await waitFor(async () => !(await scrape()).includes('payrecon_queue_jobs{'), 30_000);
      const run = await world.t.db.knex('job_runs').where({ id: runId }).first();
      expect(run).toMatchObject({ status: 'completed', selected: 20, checked: 20 });
    } finally {
      stop('test over');
    }
    expect(await worker).toEqual({ exitCode: 0, ended: 'stopped' });
  }, 60_000);
});
