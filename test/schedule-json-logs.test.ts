// Issue 40: under LOG_FORMAT=json every line the scheduler writes is JSON, through a provider outage
// and a database outage (knex's connection warnings and Node's warnings go through the logger), and a
// warning repeated by the outage is written once, then counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { startCli, waitFor } from './helpers/cli.ts';
import { cuttableProxy } from './helpers/cuttable-proxy.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';

const NEEDS = 'the scheduler reaches Postgres through a proxy the test cuts';

/** Lines that do not parse as a JSON object. */
const notJson = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });

const parsed = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

describe.skipIf(requiresServer(NEEDS))('payrecon schedule with LOG_FORMAT=json through outages', () => {
  let world: World;
  const db = { proxy: undefined as ReturnType<typeof cuttableProxy> | undefined };
  const provider = { proxy: undefined as ReturnType<typeof cuttableProxy> | undefined };

  beforeAll(async () => {
    world = await createWorld('json_logs', { env: { RECON_CONCURRENCY: '4', RECON_BATCH_SIZE: '10' } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 300, payouts: 0, seed: 7 });
    await world.control.advanceClock(2_000);
    const dbUrl = new URL(world.t.url!);
    db.proxy = cuttableProxy({ host: dbUrl.hostname, port: Number(dbUrl.port || 5432) });
    const providerUrl = new URL(world.sandbox.url);
    provider.proxy = cuttableProxy({ host: providerUrl.hostname, port: Number(providerUrl.port) });
  });
  afterAll(async () => {
    await db.proxy?.close();
    await provider.proxy?.close();
    await world?.close();
  });

  it('writes JSON lines only, and one retry warning plus a count instead of one per retry', async () => {
    const dbUrl = new URL(world.t.url!);
    dbUrl.hostname = '127.0.0.1';
    dbUrl.port = String(await db.proxy!.listen());
    const providerUrl = new URL(world.sandbox.url);
    providerUrl.hostname = '127.0.0.1';
    providerUrl.port = String(await provider.proxy!.listen());
    await world.control.setLatency(20);
    const proc = startCli(['schedule'], {
      ...world.env,
      DATABASE_URL: dbUrl.toString(),
      DATABASE_QUERY_TIMEOUT_MS: '2000',
      PROVIDER_BASE_URL: providerUrl.toString().replace(/\/$/, ''),
      PROVIDER_TIMEOUT_MS: '2000',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      SCHEDULE_HTTP_PORT: '0',
      SCHEDULE_SNAPSHOT: 'off',
      SCHEDULE_BANK_CODES: 'off',
      SCHEDULE_DAILY: 'off',
      SCHEDULE_PRUNE: 'off',
    });
    let stderr = '';
    proc.child.stderr!.on('data', (d) => (stderr += d));
    const runs = () => world.t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id');
    try {
      await waitFor(async () => parsed(stderr).some((l) => l.msg === 'health and metrics listening: /healthz /readyz /metrics'));
      const ops = String(parsed(stderr).find((l) => typeof l.url === 'string')!.url);

      // The provider stops mid-run: the run retries, then ends provider_unavailable.
      await waitFor(async () => ((await runs()).at(-1)?.checked ?? 0) >= 10);
      provider.proxy!.cut();
      await waitFor(async () => (await runs()).at(-1)?.status === 'provider_unavailable', 60_000, 200);
      provider.proxy!.restore();
      await world.control.setLatency(0);

      // The database stops between runs; Prometheus keeps scraping.
      db.proxy!.cut();
      await waitFor(async () => (await fetch(`${ops}/readyz`)).status === 503, 30_000, 200);
      await waitFor(async () => /^payrecon_database_reachable 0$/m.test(await (await fetch(`${ops}/metrics`)).text()), 30_000, 200);
      db.proxy!.restore();
      await waitFor(async () => (await fetch(`${ops}/readyz`)).status === 200, 30_000, 200);
    } finally {
      proc.child.kill('SIGTERM');
    }
    const exit = await proc.done;
    expect(exit.code, exit.stderr).toBe(0);
    expect(notJson(exit.stderr)).toEqual([]);
    expect(notJson(exit.stdout)).toEqual([]);

    const lines = parsed(exit.stderr);
    const retries = lines.filter((l) => String(l.msg).startsWith('provider call failed; retrying'));
    // The first is written in full; the rest of the minute (here: until exit) as one count.
    expect(retries[0].msg).toBe('provider call failed; retrying');
    const counted = retries.filter((l) => typeof l.repeated === 'number');
    expect(counted.length).toBeGreaterThanOrEqual(1);
    expect(retries.length).toBeLessThan(1 + 3 * counted.length);
    expect(counted.reduce((n, l) => n + Number(l.repeated), 0)).toBeGreaterThan(10);
  });
});
