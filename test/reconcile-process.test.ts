import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { runCli, startCli, waitFor } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';

const NEEDS = 'several payrecon processes share one database (advisory locks across connections)';

describe.skipIf(requiresServer(NEEDS))('reconcile as separate processes', () => {
  let world: World;
  let total: number;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    world = await createWorld('reconcile_proc', { env: { RECON_CONCURRENCY: '4', RECON_BATCH_SIZE: '10' } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 200, payouts: 100, seed: 11 });
    total = 300;
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  const runsOf = () => world.t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id');

  it('a run killed with SIGKILL half-way is resumed by the next start: every order checked exactly once', async () => {
    await world.control.setLatency(25);
    const first = startCli(['reconcile', '--date', today, '--json'], world.env);
    await waitFor(async () => {
      const [r] = await runsOf();
      return r !== undefined && r.checked >= 40;
    });
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const [dead] = await runsOf();
    expect(dead.status).toBe('running');
    expect(dead.checked).toBeLessThan(total);

    await world.control.setLatency(0);
    const second = await runCli(['reconcile', '--date', today, '--json'], world.env);
    expect(second.code, second.stderr).toBe(0);
    const outcome = JSON.parse(second.stdout);
    expect(outcome.runs[0]).toMatchObject({ runId: dead.id, resumed: true, status: 'completed', selected: total, checked: total });

    const perOrder = await world.t.db
      .knex('recon_items')
      .where({ run_id: dead.id })
      .select('direction', 'order_id')
      .count<{ n: string }[]>('* as n')
      .groupBy('direction', 'order_id');
    expect(perOrder).toHaveLength(total);
    expect(perOrder.every((r) => Number(r.n) === 1)).toBe(true);
  });

  it('two reruns started together: the second waits for the first, then runs; both complete', async () => {
    await world.control.setLatency(40); // long enough that the two runs surely overlap
    try {
      const before = (await runsOf()).length;
      const [a, b] = await Promise.all([
        runCli(['reconcile', '--date', today, '--json'], world.env),
        runCli(['reconcile', '--date', today, '--json'], world.env),
      ]);
      expect([a.code, b.code]).toEqual([0, 0]);
      expect([JSON.parse(a.stdout).status, JSON.parse(b.stdout).status]).toEqual(['completed', 'completed']);
      const [first, second] = (await runsOf()).slice(before);
      expect(new Date(second.started_at).getTime()).toBeGreaterThanOrEqual(new Date(first.finished_at).getTime());
    } finally {
      await world.control.setLatency(0);
    }
  });

  it('SIGTERM stops taking orders, checkpoints, exits 0, and the next start resumes the run', async () => {
    await world.control.setLatency(25);
    const proc = startCli(['reconcile', '--date', today, '--json'], world.env);
    let runId = '';
    await waitFor(async () => {
      const r = (await runsOf()).at(-1);
      runId = r?.id;
      return r?.status === 'running' && r.checked >= 20;
    });
    proc.child.kill('SIGTERM');
    const stopped = await proc.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    const row = await world.t.db.knex('job_runs').where({ id: runId }).first();
    expect(row.status).toBe('interrupted');
    expect(row.checked).toBeLessThan(total);

    await world.control.setLatency(0);
    const next = await runCli(['reconcile', '--date', today, '--json'], world.env);
    const outcome = JSON.parse(next.stdout);
    expect(outcome.runs[0]).toMatchObject({ runId, resumed: true, status: 'completed', checked: total });
  });
});
