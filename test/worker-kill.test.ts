import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { startCli, waitFor, type CliResult } from './helpers/cli.ts';
import type { ChildProcess } from 'node:child_process';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { silentLogger } from '../src/log/logger.ts';
import { enqueueReconcileSweep } from '../src/services/queue-plan.ts';
import { installQueue } from '../src/worker/install.ts';

const NEEDS = 'payrecon worker processes share a graphile-worker queue on a Postgres server';

// One account (the accounts model of issue 41 is built beside this): 300 orders in 60 batches of 5,
// three worker processes, one of them SIGKILLed twice while it holds a batch.
describe.skipIf(requiresServer(NEEDS))('payrecon worker: a worker killed mid-batch loses nothing', () => {
  let world: World;
  const total = 300;
  const workers: Array<{ child: ChildProcess; done: Promise<CliResult> }> = [];

  beforeAll(async () => {
    world = await createWorld('worker_kill', {
      env: {
        SCHEDULE_MODE: 'queue',
        RECON_CONCURRENCY: '1',
        RECON_BATCH_SIZE: '5',
        WORKER_CONCURRENCY: '1',
        WORKER_LOCK_TIMEOUT_SECONDS: '2',
      },
    });
    await seedMerchant(world.t.db.knex, world.client, { payments: 200, payouts: 100, seed: 41 });
    await world.control.advanceClock(2_000);
    await installQueue(world.t.db, world.t.url!, silentLogger);
  });
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.done));
    await world?.close();
  });

  const knex = () => world.t.db.knex;
  const startWorker = () => {
    const w = startCli(['worker'], world.env);
    workers.push(w);
    return w;
  };
  /** The instance of a worker process, once it beats. */
  const instanceOf = async (pid: number): Promise<string> => {
    let instance = '';
    await waitFor(async () => {
      const row = await knex()('worker_heartbeats').where({ pid }).first();
      instance = row?.instance ?? '';
      return instance !== '';
    });
    return instance;
  };
  /** Waits until this worker holds a batch it has not written, and returns it. */
  const holdingABatch = async (instance: string) => {
    let held: { run_id: string; batch: number } | undefined;
    await waitFor(async () => {
      held = await knex()('run_batches').where({ claimed_by: instance }).whereNull('done_at').first();
      return held !== undefined;
    });
    return held!;
  };

  it('two schedulers planning the same occurrence enqueue it once; three workers, one killed twice, check every order once', async () => {
    await world.control.setLatency(100);
    const scheduledFor = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const ctx = { config: world.config, db: world.t.db, logger: silentLogger };
    const plans = await Promise.all([enqueueReconcileSweep(ctx, scheduledFor), enqueueReconcileSweep(ctx, scheduledFor)]);
    expect(plans.filter((p) => p.planned)).toHaveLength(1);
    const plan = plans.find((p) => p.planned) as { runId: string; jobs: number };
    expect(plan.jobs).toBe(total / 5);
    expect(await knex()('run_batches').where({ run_id: plan.runId }).count<{ n: string }[]>('* as n')).toEqual([{ n: '60' }]);

    const [victim] = [startWorker(), startWorker(), startWorker()];
    const killed: string[] = [];
    const cut: Array<{ run_id: string; batch: number }> = [];
    let target = victim;
    for (let round = 0; round < 2; round++) {
      const instance = await instanceOf(target.child.pid!);
      const held = await holdingABatch(instance);
      target.child.kill('SIGKILL');
      expect((await target.done).signal).toBe('SIGKILL');
      killed.push(instance);
      cut.push(held);
      // Still unwritten after the kill: it is this batch the others must pick up.
      const after = await knex()('run_batches').where(held).first();
      expect(after.done_at).toBeNull();
      target = startWorker();
    }

    await waitFor(async () => (await knex()('job_runs').where({ id: plan.runId }).first())?.status === 'completed', 60_000, 100);
    const run = await knex()('job_runs').where({ id: plan.runId }).first();
    expect(run).toMatchObject({ status: 'completed', selected: total, checked: total });

    // Every order checked exactly once in the run: no check written twice, none lost with the killed worker.
    const perOrder = await knex()('recon_items')
      .where({ run_id: plan.runId })
      .select('direction', 'order_id')
      .count<{ n: string }[]>('* as n')
      .groupBy('direction', 'order_id');
    expect(perOrder).toHaveLength(total);
    expect(perOrder.every((r) => Number(r.n) === 1)).toBe(true);

    // Each batch written once, by the worker holding its latest claim; the killed batches were retried by live workers.
    const batches = await knex()('run_batches').where({ run_id: plan.runId });
    expect(batches.every((b) => b.done_at !== null && b.done_by === b.claimed_by)).toBe(true);
    expect(batches.some((b) => b.attempts >= 2)).toBe(true);
    for (const held of cut) {
      const b = batches.find((x) => x.batch === held.batch)!;
      expect(b.attempts).toBeGreaterThanOrEqual(2);
      expect(killed).not.toContain(b.done_by);
    }
    // The dead workers' heartbeats were reaped.
    expect(await knex()('worker_heartbeats').whereIn('instance', killed)).toEqual([]);

    // SIGTERM: the live workers stop cleanly.
    const live = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    for (const w of live) w.child.kill('SIGTERM');
    for (const w of live) expect((await w.done).code).toBe(0);
  }, 90_000);
});
