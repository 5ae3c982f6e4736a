import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { startCli, waitFor, type CliResult } from './helpers/cli.ts';
import type { ChildProcess } from 'node:child_process';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { silentLogger } from '../src/log/logger.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { configuredAccounts } from '../src/config/accounts.ts';
import { createAccountClient } from '../src/provider/from-config.ts';
import { queueRunners } from '../src/services/queue-runners.ts';
import { installQueue } from '../src/worker/install.ts';

const NEEDS = 'payrecon worker processes share a graphile-worker queue on a Postgres server';

// Two accounts (two MerchantIDs with their own secrets and orders in one sandbox), 150 orders each,
// batches of 5: 60 batches in two runs. Three worker processes; one SIGKILLed twice while it holds a batch.
describe.skipIf(requiresServer(NEEDS))('payrecon worker: a worker killed mid-batch loses nothing', () => {
  let world: World;
  let config: Config;
  let env: Record<string, string>;
  const perAccount = 150;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-worker-kill-'));
  const workers: Array<{ child: ChildProcess; done: Promise<CliResult> }> = [];

  beforeAll(async () => {
    world = await createWorld('worker_kill', {
      sandbox: {
        merchants: [
          { id: 'merchant-a', secret: 'secret-a-0123456789' },
          { id: 'merchant-b', secret: 'secret-b-0123456789' },
        ],
      },
      env: { PROVIDER_MERCHANT_ID: 'merchant-a', PROVIDER_SECRET: 'secret-a-0123456789' },
    });
    const file = path.join(dir, 'accounts.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          { id: 'acct-a', merchantId: 'merchant-a', secret: { env: 'ACCT_A_SECRET' } },
          { id: 'acct-b', merchantId: 'merchant-b', secret: { env: 'ACCT_B_SECRET' } },
        ],
      }),
    );
    env = {
      ...world.env,
      ACCOUNTS_FILE: file,
      ACCT_A_SECRET: 'secret-a-0123456789',
      ACCT_B_SECRET: 'secret-b-0123456789',
      SCHEDULE_MODE: 'queue',
      RECON_CONCURRENCY: '1',
      RECON_BATCH_SIZE: '5',
      WORKER_CONCURRENCY: '1',
      WORKER_LOCK_TIMEOUT_SECONDS: '2',
    };
    config = loadConfig(env);
    // Each account's orders created at its own MerchantID, then marked as that account's.
    for (const [i, account] of configuredAccounts(config).entries()) {
      const client = await createAccountClient(config, account, { logger: silentLogger, retryBaseMs: 5, maxRetries: 2 });
      const seeded = await seedMerchant(world.t.db.knex, client, { payments: 100, payouts: 50, seed: 41 + i });
      await client.close();
      for (const d of ['payment', 'payout'] as const) {
        const refs = seeded.filter((o) => o.direction === d).map((o) => o.merchantRef);
        await world.t.db.knex(`${d}_orders`).whereIn('merchant_ref', refs).update({ account_id: account.id });
      }
    }
    await world.control.advanceClock(2_000);
    await installQueue(world.t.db, world.t.url!, silentLogger);
  });
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.done));
    await world?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const knex = () => world.t.db.knex;
  const startWorker = () => {
    const w = startCli(['worker'], env);
    workers.push(w);
    return w;
  };
  /**
   * Waits until one of the live workers holds a batch it has not written: that worker, its instance and
   * the batch. (An account's batches run one at a time, so with two accounts one of three workers may be idle.)
   */
  const aWorkerHoldingABatch = async () => {
    let found: { worker: (typeof workers)[number]; instance: string; held: { run_id: string; batch: number } } | undefined;
    await waitFor(async () => {
      for (const worker of workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null)) {
        const instance = (await knex()('worker_heartbeats').where({ pid: worker.child.pid }).first())?.instance as string | undefined;
        if (!instance) continue;
        const held = await knex()('run_batches').where({ claimed_by: instance }).whereNull('done_at').first();
        if (held) {
          found = { worker, instance, held };
          return true;
        }
      }
      return false;
    });
    return found!;
  };

  it('two schedulers planning the same occurrence enqueue it once; three workers, one killed twice, check every order of both accounts once', async () => {
    await world.control.setLatency(100);
    const total = 2 * perAccount;
    const scheduledFor = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const ctx = { scheduledFor, reason: 'scheduled' as const, signal: new AbortController().signal, logger: silentLogger };
    const schedulers = [queueRunners({ config, db: world.t.db }), queueRunners({ config, db: world.t.db })];
    const reports = await Promise.all(schedulers.map((s) => s.reconcile(ctx)));
    // Each account's occurrence is planned by one of the two (which one can differ per account): two runs in all, 60 jobs.
    const planned = reports.filter((r) => r.status === 'enqueued');
    const runIds = planned.flatMap((r) => r.detail!.runIds as string[]);
    expect(runIds).toHaveLength(2);
    // 100 payments and 50 payouts per account in batches of 5: 30 batches each.
    expect(planned.reduce((n, r) => n + r.counts!.jobs, 0)).toBe(total / 5);
    expect(await world.t.db.knex('queued_work').where({ job: 'reconcile' }).count<{ n: string }[]>('* as n')).toEqual([{ n: '2' }]);
    expect(await world.t.db.knex('job_runs').whereIn('id', runIds).select('account_id').orderBy('account_id')).toEqual([
      { account_id: 'acct-a' },
      { account_id: 'acct-b' },
    ]);

    for (let i = 0; i < 3; i++) startWorker();
    const killed: string[] = [];
    const cut: Array<{ run_id: string; batch: number }> = [];
    for (let round = 0; round < 2; round++) {
      const { worker: target, instance, held } = await aWorkerHoldingABatch();
      target.child.kill('SIGKILL');
      expect((await target.done).signal).toBe('SIGKILL');
      killed.push(instance);
      cut.push(held);
      // Still unwritten after the kill: it is this batch the others must pick up.
      const after = await knex()('run_batches').where(held).first();
      expect(after.done_at).toBeNull();
      startWorker();
    }

    const runsDone = async () => (await knex()('job_runs').whereIn('id', runIds).where({ status: 'completed' })).length === 2;
    await waitFor(runsDone, 60_000, 100);
    const runs = await knex()('job_runs').whereIn('id', runIds).orderBy('account_id');
    for (const run of runs) expect(run).toMatchObject({ status: 'completed', selected: perAccount, checked: perAccount });

    // Every order checked exactly once, in its own account's run: no check written twice, none lost with the killed worker.
    const perOrder = await knex()('recon_items')
      .whereIn('run_id', runIds)
      .select('direction', 'order_id')
      .count<{ n: string }[]>('* as n')
      .groupBy('direction', 'order_id');
    expect(perOrder).toHaveLength(total);
    expect(perOrder.every((r) => Number(r.n) === 1)).toBe(true);
    for (const d of ['payment', 'payout'] as const) {
      const wrongRun = await knex()(`${d}_orders as o`)
        .join('recon_items as i', (j) => j.on('i.order_id', 'o.id').andOnVal('i.direction', d))
        .join('job_runs as r', 'r.id', 'i.run_id')
        .whereIn('r.id', runIds)
        .whereRaw('r.account_id <> o.account_id')
        .count<{ n: string }[]>('* as n');
      expect(wrongRun).toEqual([{ n: '0' }]);
    }
    // Asked with its own MerchantID and secret, the sandbox found every order (another account's would be NOT_FOUND).
    const notFound = await knex()('recon_items')
      .whereIn('run_id', runIds)
      .whereRaw(`'NOT_FOUND' = ANY(codes)`)
      .count<{ n: string }[]>('* as n');
    expect(notFound).toEqual([{ n: '0' }]);

    // Each batch written once, by the worker holding its latest claim; the killed batches were retried by live workers.
    const batches = await knex()('run_batches').whereIn('run_id', runIds);
    expect(batches.every((b) => b.done_at !== null && b.done_by === b.claimed_by)).toBe(true);
    for (const held of cut) {
      const b = batches.find((x) => x.run_id === held.run_id && x.batch === held.batch)!;
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
