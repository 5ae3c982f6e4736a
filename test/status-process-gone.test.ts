/**
 * A reconcile killed with SIGKILL leaves its run 'running' (nothing got to record the end). On the
 * machine that ran it, `status` sees at once that the recorded process is gone, instead of showing
 * it running until RUN_STALL_AFTER_SECONDS have passed.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { runCli, startCli, waitFor } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { processGone } from '../src/status/process-gone.ts';

describe.skipIf(requiresServer('a reconcile process and a status process share one database'))('status after a SIGKILLed reconcile', () => {
  let world: World;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    world = await createWorld('status_gone', { env: { RECON_CONCURRENCY: '2', RECON_BATCH_SIZE: '10' } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 120, payouts: 0, seed: 5 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  it('says "process gone; will resume" at once, not running until the stall threshold', async () => {
    await world.control.setLatency(25);
    const run = startCli(['reconcile', '--date', today, '--json'], world.env);
    const pid = run.child.pid!;
    await waitFor(async () => {
      const r = await world.t.db.knex('job_runs').where({ job: 'reconcile' }).first();
      return r !== undefined && r.checked >= 10;
    });
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    const row = await world.t.db.knex('job_runs').where({ job: 'reconcile' }).first();
    expect(row).toMatchObject({ status: 'running', pid, host: os.hostname() });

    // The default threshold (900 s) is far away: only the process check can tell.
    const env = { ...world.env, LOG_LEVEL: 'warn' };
    const json = await runCli(['status', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const reconcile = JSON.parse(json.stdout).jobs.find((j: { job: string }) => j.job === 'reconcile').lastRun;
    expect(reconcile).toMatchObject({ status: 'running', pid, processGone: true, stalled: null });
    const table = await runCli(['status'], env);
    expect(table.stdout).toMatch(new RegExp(`reconcile .* running, process gone \\(pid ${pid} on ${os.hostname()}\\); will resume`));
  }, 60_000);
});

describe('processGone', () => {
  it('is true only for a pid that is not running on this host', () => {
    expect(processGone({ pid: process.pid, host: os.hostname() })).toBe(false);
    // Another host's pid cannot be checked from here: not gone as far as this machine knows.
    expect(processGone({ pid: 2 ** 22 + 1, host: `not-${os.hostname()}` })).toBe(false);
    expect(processGone({ pid: null, host: os.hostname() })).toBe(false);
    // Above the kernel's pid_max (at most 2^22): no such process.
    expect(processGone({ pid: 2 ** 22 + 1, host: os.hostname() })).toBe(true);
  });
});
