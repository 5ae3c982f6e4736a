import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config } from '../src/config/config.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { snapshotJob } from '../src/services/snapshot.ts';
import { silentLogger } from '../src/log/logger.ts';
import { type Sandbox } from '../src/sandbox/server.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { Decimal } from '../src/money/decimal.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedAccountOrders, startTwoAccounts, type TwoAccounts } from './helpers/two-accounts.ts';

// Two provider accounts against one sandbox over HTTP serving both MerchantIDs: `snapshot --account ID`
// reads that account's balances with its own client, and its roll-forward counts only its own orders.
// Without the account filter one account's window would count the other's settled orders as drift.

describe('snapshot of one account among several', () => {
  let t: TestDatabase;
  let sandbox: Sandbox;
  let config: Config;
  let accounts: TwoAccounts;
  const ids = ['in-main', 'ng-brand'] as const;

  beforeAll(async () => {
    t = await createTestDatabase('snapshot_accounts');
    accounts = await startTwoAccounts(t);
    ({ sandbox, config } = accounts);
  });
  afterAll(async () => {
    await accounts?.close();
    await t?.drop();
  });

  const context = () => ({ config, db: t.db, logger: silentLogger });
  const total = (r: { available: string; pending: string; held: string }) =>
    new Decimal(r.available).plus(r.pending).plus(r.held).toString();

  it('refuses a snapshot naming no account, naming the ids', async () => {
    await expect(snapshotJob({}, context())).rejects.toThrow('--account: required, 2 accounts are configured (in-main, ng-brand)');
  });

  it("stores each account's own balances, read with its own client", async () => {
    await new SandboxControl(sandbox.url).adjustBalance('INR', '1000.00', 'M-NG');
    for (const id of ids) {
      const { exitCode, result } = await snapshotJob({ account: id }, context());
      expect(exitCode).toBe(0);
      expect(result.status).toBe('completed');
      const run = await t.db.knex('job_runs').where({ id: result.runId }).first();
      expect(run.account_id).toBe(id);
    }
    const rows = (await t.db
      .knex('balance_snapshots')
      .select(
        'account_id',
        'currency',
        t.db.knex.raw('available::text AS available'),
        t.db.knex.raw('pending::text AS pending'),
        t.db.knex.raw('held::text AS held'),
      )
      .where({ currency: 'INR' })) as Array<{ account_id: string; available: string; pending: string; held: string }>;
    const by = Object.fromEntries(rows.map((r) => [r.account_id, total(r)]));
    expect(Object.keys(by).sort()).toEqual([...ids]);
    // Only M-NG's balance was raised: ng-brand's reading is its own, not in-main's.
    expect(new Decimal(by['ng-brand']).minus(by['in-main']).toString()).toBe('1000');
    const rates = await t.db.knex('rate_snapshots').select('account_id').count('* as n').groupBy('account_id');
    expect(Object.fromEntries(rates.map((r) => [r.account_id, Number(r.n)]))).toEqual({
      'in-main': config.RECON_CURRENCIES.length,
      'ng-brand': config.RECON_CURRENCIES.length,
    });
  });

  it("rolls each account's balance forward with its own orders only: no drift, its own counts", async () => {
    const settled: Record<string, number> = {};
    for (const [id, seed] of [
      ['in-main', 1],
      ['ng-brand', 2],
    ] as const) {
      await seedAccountOrders(t, config, id, seed);
    }
    await new SandboxControl(sandbox.url).advanceClock(2_000);
    const today = new Date().toISOString().slice(0, 10);
    for (const id of ids) await reconcileJob({ account: id, progress: false, date: today }, context());
    for (const id of ids) {
      const { result } = await snapshotJob({ account: id }, context());
      expect(result.status).toBe('completed');
      expect(result.drift).toEqual([]);
      const n = await t.db.knex('payment_orders').where({ account_id: id }).whereNotNull('provider_success_at').count('* as n').first();
      settled[id] = Number(n!.n);
    }
    expect(settled['in-main']).toBeGreaterThan(0);
    expect(settled['ng-brand']).toBeGreaterThan(0);
    const checks = (await t.db.knex('balance_checks').select('account_id', 'payments_count', 'within_tolerance')) as Array<{
      account_id: string;
      payments_count: number;
      within_tolerance: boolean;
    }>;
    for (const id of ids) {
      const mine = checks.filter((c) => c.account_id === id);
      expect(mine).toHaveLength(config.RECON_CURRENCIES.length);
      expect(mine.every((c) => c.within_tolerance)).toBe(true);
      expect(mine.reduce((s, c) => s + Number(c.payments_count), 0)).toBe(settled[id]);
    }
  });
});
