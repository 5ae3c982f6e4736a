/**
 * A provider answering 429 to every fetch (the sandbox's status429 fault): the run must end
 * provider_unavailable in bounded time (PROVIDER_MAX_THROTTLED_MS) instead of waiting out 429s for
 * hours while holding the lock, and a SIGTERM during the 429 waits must stop the process within a
 * few seconds with the run checkpointed ('interrupted', resumed and completed by the next start).
 * Real processes, real Postgres, the sandbox over HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { startCli, waitFor, type CliResult } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { EXIT } from '../src/domain/exit-codes.ts';

const ORDERS = { payments: 8, payouts: 4 };
const FETCHES = ['paymentFetch', 'payoutFetch'] as const;

/** The child's result, or null when it was still running at the deadline (then it is killed). */
async function resultWithin(proc: ReturnType<typeof startCli>, ms: number): Promise<CliResult | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  const r = await Promise.race([proc.done, late]);
  clearTimeout(timer);
  if (r === null) {
    proc.child.kill('SIGKILL');
    await proc.done;
  }
  return r;
}

describe.skipIf(requiresServer('a payrecon child process shares the database'))('a provider answering 429 to everything', () => {
  let world: World;
  const today = new Date().toISOString().slice(0, 10);
  const runs = () => world.t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id');

  beforeAll(async () => {
    world = await createWorld('fault_throttled', { env: { RECON_CONCURRENCY: '4', RECON_BATCH_SIZE: '4', LOG_LEVEL: 'silent' } });
    await seedMerchant(world.t.db.knex, world.client, { ...ORDERS, seed: 7 });
    await world.control.advanceClock(2_000);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });
  beforeEach(async () => {
    await world.control.clearFaults();
  });

  it('the run ends provider_unavailable within the configured bound (3 s) instead of waiting out 429s', async () => {
    await world.control.addFault({ kind: 'status429', operations: [...FETCHES], retryAfterSec: 1 });
    const started = Date.now();
    const proc = startCli(['reconcile', '--date', today, '--json'], { ...world.env, PROVIDER_MAX_THROTTLED_MS: '3000' });
    // Bound 3 s, plus at most one Retry-After and one backoff (1 s each here), plus process start-up.
    const r = await resultWithin(proc, 45_000);
    expect(r, 'the run was still waiting out 429s after 45 s').not.toBeNull();
    expect(r!.code, r!.stderr).toBe(EXIT.INCOMPLETE);
    const last = (await runs()).at(-1);
    expect(last.status).toBe('provider_unavailable');
    expect(last.error).toMatch(/429/);
    expect(last.checked).toBe(0);
    expect(Date.now() - started).toBeLessThan(45_000);
  }, 90_000);

  it('SIGTERM during 429 waits: the process exits within 10 s, the run is interrupted and resumed by the next start', async () => {
    // Retry-After 30 s: without the stop reaching the waits, the process sleeps through SIGTERM.
    await world.control.addFault({ kind: 'status429', operations: [...FETCHES], retryAfterSec: 30 });
    const before = (await world.control.stats()).rate.throttled + (await world.control.stats()).faultsApplied;
    const proc = startCli(['reconcile', '--date', today, '--json'], world.env);
    // Polled: the run has started and the provider has refused at least one fetch, so calls are waiting.
    await waitFor(async () => (await world.control.stats()).faultsApplied + (await world.control.stats()).rate.throttled > before, 60_000);
    proc.child.kill('SIGTERM');
    const r = await resultWithin(proc, 10_000);
    expect(r, 'still running 10 s after SIGTERM').not.toBeNull();
    expect(r!.signal).toBeNull();
    const interrupted = (await runs()).at(-1);
    expect(interrupted.status).toBe('interrupted');

    await world.control.clearFaults();
    const next = await resultWithin(startCli(['reconcile', '--date', today, '--json'], world.env), 60_000);
    expect(next?.code, next?.stderr).toBe(EXIT.OK);
    const resumed = (await runs()).find((x) => x.id === interrupted.id);
    expect(resumed.status).toBe('completed');
    expect(resumed.checked).toBe(ORDERS.payments + ORDERS.payouts);
  }, 120_000);
});
