import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config/config.ts';
import { type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { reportJob } from '../src/services/report.ts';
import { snapshotJob } from '../src/services/snapshot.ts';
import { silentLogger } from '../src/log/logger.ts';
import { type Sandbox } from '../src/sandbox/server.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { CHECK_AT_ONCE_ENV, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedAccountOrders, startTwoAccounts, type TwoAccounts } from './helpers/two-accounts.ts';

// Two provider accounts against one sandbox over HTTP, each MerchantID with its own secret and its
// own orders: a run of one account checks its orders only, each with its own MerchantID and secret.
// An order fetched with the other account's MerchantID is unknown there, and a wrong secret is refused.

describe('reconcile of one account among several', () => {
  let t: TestDatabase;
  let sandbox: Sandbox;
  let config: Config;
  const orders: Record<string, SeededOrder[]> = {};
  let accounts: TwoAccounts;

  beforeAll(async () => {
    t = await createTestDatabase('reconcile_accounts');
    accounts = await startTwoAccounts(t);
    ({ sandbox, config } = accounts);
    // Each account's merchant creates its orders at the provider, recorded under the account.
    for (const [id, seed] of [
      ['in-main', 1],
      ['ng-brand', 2],
    ] as const) {
      orders[id] = await seedAccountOrders(t, config, id, seed);
    }
    await new SandboxControl(sandbox.url).advanceClock(2_000);
  });
  afterAll(async () => {
    await accounts?.close();
    await t?.drop();
  });

  const today = () => new Date().toISOString().slice(0, 10);
  const context = () => ({ config, db: t.db, logger: silentLogger });

  async function checked(table: string): Promise<Record<string, string[]>> {
    const rows = await t.db.knex(table).where('check_count', '>', 0).select('merchant_ref', 'account_id');
    const out: Record<string, string[]> = {};
    for (const r of rows as Array<{ merchant_ref: string; account_id: string }>) (out[r.account_id] ??= []).push(r.merchant_ref);
    return out;
  }

  it('refuses a run naming no account when several are configured, naming the ids', async () => {
    await expect(reconcileJob({ progress: false, date: today() }, context())).rejects.toThrow(
      '--account: required, 2 accounts are configured (in-main, ng-brand)',
    );
  });

  it('refuses a snapshot or a report naming no account, rather than mix the accounts', async () => {
    await expect(snapshotJob({}, context())).rejects.toThrow('--account: required, 2 accounts are configured (in-main, ng-brand)');
    await expect(reportJob({}, context())).rejects.toThrow('--account: required, 2 accounts are configured (in-main, ng-brand)');
  });

  it("checks only the account's orders, each with its own MerchantID and secret", async () => {
    const r = await reconcileJob({ progress: false, date: today(), account: 'in-main' }, context());
    expect(r.outcome.status).not.toBe('skipped');
    const runs = r.outcome.runs;
    expect(runs.reduce((n, run) => n + run.checked, 0)).toBe(5);
    // Found and matched at the provider: fetched as M-IN (M-NG's fetch of them is "not found").
    const verdicts = await t.db.knex('recon_items').select('verdict', 'codes');
    expect(verdicts.every((v: { verdict: string }) => v.verdict === 'matched' || v.verdict === 'resolved')).toBe(true);
    const byAccount = { ...(await checked('payment_orders')) };
    for (const [id, refs] of Object.entries(await checked('payout_orders'))) byAccount[id] = [...(byAccount[id] ?? []), ...refs];
    expect(Object.keys(byAccount)).toEqual(['in-main']);
    expect(byAccount['in-main'].sort()).toEqual(orders['in-main'].map((o) => o.merchantRef).sort());
  });

  it("the other account next: its orders, with its own credentials; another account's unfinished run is not resumed", async () => {
    // A run of in-main left unfinished: only an in-main run, with in-main's client, may resume it.
    const [inRun] = await t.db.knex('job_runs').where({ job: 'reconcile', account_id: 'in-main' }).select('id');
    expect(inRun).toBeDefined();
    await t.db.knex('job_runs').where({ id: inRun.id }).update({ status: 'interrupted' });
    const r = await reconcileJob({ progress: false, date: today(), account: 'ng-brand' }, context());
    expect(r.outcome.runs.reduce((n, run) => n + run.checked, 0)).toBe(5);
    const items = await t.db.knex('recon_items').select('verdict');
    expect(items).toHaveLength(10);
    expect(items.every((v: { verdict: string }) => v.verdict === 'matched' || v.verdict === 'resolved')).toBe(true);
    expect(r.outcome.runs.map((run) => run.resumed)).toEqual([false]);
    expect((await t.db.knex('job_runs').where({ id: inRun.id }).first('status')).status).toBe('interrupted');
    const runs = await t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id').select('account_id');
    expect(runs.map((x: { account_id: string }) => x.account_id)).toEqual(['in-main', 'ng-brand']);
    await t.db.knex('job_runs').where({ id: inRun.id }).update({ status: 'completed' });
  });

  it("an account given the other's secret is refused by the sandbox over HTTP (403), nothing checked", async () => {
    const wrong = loadConfig({ ...envOf(config), NG_SECRET: 'secret-in' });
    const before = await t.db.knex('recon_items').count<{ count: string }[]>('* as count');
    const r = await reconcileJob({ progress: false, date: today(), account: 'ng-brand' }, { ...context(), config: wrong });
    expect(r.outcome.runs.map((run) => run.status)).toContain('credentials');
    const after = await t.db.knex('recon_items').count<{ count: string }[]>('* as count');
    expect(Number(after[0].count)).toBe(Number(before[0].count));
  });
});

/** The variables a config was loaded from that this test sets (to load it again with one changed). */
function envOf(config: Config): Record<string, string> {
  return {
    ...CHECK_AT_ONCE_ENV,
    ...(config.DATABASE_URL ? { DATABASE_URL: config.DATABASE_URL } : { PGLITE_DIR: config.PGLITE_DIR }),
    ACCOUNTS_FILE: config.ACCOUNTS_FILE!.file,
    IN_SECRET: 'secret-in',
    NG_SECRET: 'secret-ng',
    LOG_LEVEL: 'silent',
  };
}
