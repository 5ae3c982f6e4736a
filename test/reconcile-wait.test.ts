import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { runCli, startCli, waitFor } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';
import { withJobLock } from '../src/db/locks.ts';
import { createRun, finishRun } from '../src/db/runs.ts';

const NEEDS = 'a rerun and a sweep in separate processes share the advisory lock';

describe.skipIf(requiresServer(NEEDS))('an explicit rerun while the due sweep holds the lock', () => {
  let world: World;
  let other: Db;
  const today = new Date().toISOString().slice(0, 10);
  const runsOf = () => world.t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id');

  beforeAll(async () => {
    world = await createWorld('reconcile_wait', { env: { RECON_CONCURRENCY: '4', RECON_BATCH_SIZE: '10' } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 60, payouts: 30, seed: 5 });
    other = await openDatabase(world.t.config, { poolMax: 2, applicationName: 'payrecon-reconcile' });
  });
  afterAll(async () => {
    await other?.close();
    await world?.close();
  });

  it('waits for a running sweep, then runs the day in full', async () => {
    // A slow provider keeps the sweep (90 due orders, 4 at a time) running until the rerun is seen waiting.
    await world.control.setLatency(3000);
    try {
      const sweep = startCli(['reconcile', '--json'], world.env);
      await waitFor(async () => (await runsOf()).some((r) => r.status === 'running'), 120_000);
      const rerun = startCli(['reconcile', '--date', today, '--wait', '5m', '--json'], world.env);
      let rerunErr = '';
      rerun.child.stderr!.on('data', (d) => (rerunErr += d));
      await waitFor(async () => rerunErr.includes('another reconcile run holds the lock; waiting for it to finish'), 120_000);
      await world.control.setLatency(0);
      const swept = await sweep.done;
      const done = await rerun.done;
      expect(swept.code, swept.stderr).toBe(0);
      expect(JSON.parse(swept.stdout).status).toBe('completed');
      expect(done.code, done.stderr).toBe(0);
      const outcome = JSON.parse(done.stdout);
      expect(outcome).toMatchObject({ status: 'completed', runs: [{ status: 'completed', selected: 90, checked: 90 }] });
      const [first, second] = await runsOf();
      expect(first.params.selection.mode).toBe('due');
      expect(second.params.selection.mode).toBe('range');
      // Chained, not overlapping: the rerun started after the sweep finished.
      expect(new Date(second.started_at).getTime()).toBeGreaterThanOrEqual(new Date(first.finished_at).getTime());
    } finally {
      await world.control.setLatency(0);
    }
  }, 300_000);

  it('exits 2 naming the holder and how long it has held the lock when the wait runs out; the bare sweep still skips quietly', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding!: (runId: string) => void;
    const held = new Promise<string>((r) => (holding = r));
    // Another process's sweep: the lock on a second pool, with its running run row.
    const sweep = withJobLock(other, 'reconcile', async () => {
      const run = await createRun(other.knex, 'reconcile', { selection: { mode: 'due' } }, { dryRun: false, now: new Date() });
      holding(run.id);
      await released;
      await finishRun(other.knex, run.id, 'completed', {}, null, new Date());
    });
    try {
      const runId = await held;
      const gaveUp = await runCli(['reconcile', '--date', today, '--wait', '1s'], world.env);
      expect(gaveUp.code, gaveUp.stderr).toBe(2);
      expect(gaveUp.stdout).toMatch(
        new RegExp(
          `gave up waiting for the lock: run ${runId} \\(due sweep, pid \\d+ on \\S+, database session \\d+ payrecon-reconcile\\) has held the lock for \\d+s`,
        ),
      );
      expect(gaveUp.stdout).not.toContain('nothing done');

      const json = await runCli(['reconcile', '--ref', 'no-such-order', '--wait', '0', '--json'], world.env);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout)).toMatchObject({ status: 'busy', runs: [], lockHolder: expect.stringContaining(`run ${runId}`) });

      const bare = await runCli(['reconcile', '--json'], world.env);
      expect(bare.code, bare.stderr).toBe(0);
      expect(JSON.parse(bare.stdout)).toEqual({ status: 'skipped', runs: [] });
    } finally {
      release();
      await sweep;
    }
  }, 180_000);

  it('refuses a --wait that is not a duration, before any work', async () => {
    const bad = await runCli(['reconcile', '--date', today, '--wait', 'soon'], world.env);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('--wait');
  });
});
