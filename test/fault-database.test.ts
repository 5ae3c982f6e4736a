/**
 * The database connection lost in the middle of a run. Restarting the shared Postgres server here
 * would disturb other engineers' tests, so "every connection of the test database terminated"
 * (pg_terminate_backend, what a server restart does to clients) stands in for it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { runCli, startCli, waitFor } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';

const DB_PASSWORD = 'db-pass-Q7x9-never-printed';
const PROVIDER_SECRET = 'provider-secret-K3v8-never-printed';

describe.skipIf(requiresServer('terminating the connections of a child process needs a Postgres server'))(
  'database connections terminated mid-run',
  () => {
    let world: World;
    let env: Record<string, string>;
    let dbName: string;
    const total = 300;
    const today = new Date().toISOString().slice(0, 10);

    beforeAll(async () => {
      world = await createWorld('fault_db', {
        env: { RECON_CONCURRENCY: '4', RECON_BATCH_SIZE: '10', PROVIDER_SECRET },
        sandbox: { merchants: [{ id: 'demo-merchant', secret: PROVIDER_SECRET }] },
      });
      await seedMerchant(world.t.db.knex, world.client, { payments: 200, payouts: 100, seed: 31 });
      await world.control.advanceClock(2_000);
      const url = new URL(world.t.url!);
      dbName = url.pathname.slice(1);
      url.password = DB_PASSWORD; // trust auth ignores it; it must still never be printed
      env = { ...world.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'info' };
    });
    afterAll(() => world?.close());

    const runs = () => world.t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id');

    async function terminateAll(): Promise<number> {
      const admin = new pg.Client({ connectionString: world.t.url });
      await admin.connect();
      try {
        const r = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [dbName],
        );
        return r.rowCount ?? 0;
      } finally {
        await admin.end();
      }
    }

    it('the run stops cleanly (no crash trace, no secret), and the next run completes with every order checked exactly once', async () => {
      await world.control.setLatency(25);
      const first = startCli(['reconcile', '--date', today, '--json'], env);
      await waitFor(async () => {
        const [r] = await runs().catch(() => []);
        return r !== undefined && r.checked >= 40;
      });
      expect(await terminateAll()).toBeGreaterThan(0);
      const lost = await first.done;
      await world.control.setLatency(0);

      // The lock's connection was among those terminated, so another process could take the lock:
      // the run must stop writing, say so, exit "could not complete", and leave the run resumable.
      expect(lost.signal).toBeNull();
      expect(lost.code, lost.stderr).toBe(2);
      expect(lost.stdout + lost.stderr).toMatch(/lost the job lock/);
      const output = lost.stdout + lost.stderr;
      expect(output).not.toContain(DB_PASSWORD);
      expect(output).not.toContain(PROVIDER_SECRET);
      expect(output).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace

      // Our own pool lost its connections too: wait until it answers again.
      await waitFor(async () => (await runs().catch(() => null)) !== null, 10_000);
      const [killedRun] = await runs();
      expect(killedRun.status).toBe('running');
      expect(killedRun.checked).toBeLessThan(total);

      const next = await runCli(['reconcile', '--date', today, '--json'], env);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout + next.stderr).not.toContain(DB_PASSWORD);
      const outcome = JSON.parse(next.stdout);
      expect(outcome.runs[0]).toMatchObject({ runId: killedRun.id, resumed: true, status: 'completed', selected: total, checked: total });
      for (const r of outcome.runs as Array<{ runId: string; status: string }>) {
        expect(r.status).toBe('completed');
        const perOrder = await world.t.db
          .knex('recon_items')
          .where({ run_id: r.runId })
          .select('direction', 'order_id')
          .count<{ n: string }[]>('* as n')
          .groupBy('direction', 'order_id');
        expect(perOrder).toHaveLength(total);
        expect(perOrder.every((x) => Number(x.n) === 1)).toBe(true);
      }
      const open = await world.t.db.knex('job_runs').whereIn('status', ['running', 'interrupted']);
      expect(open).toEqual([]);
    });
  },
);
