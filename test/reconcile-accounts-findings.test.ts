import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config } from '../src/config/config.ts';
import { type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { silentLogger } from '../src/log/logger.ts';
import { type Sandbox } from '../src/sandbox/server.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedAccountOrders, startTwoAccounts, type TwoAccounts } from './helpers/two-accounts.ts';

// What a reconcile run of one account writes belongs to that account: its check rows, the cases its
// mismatches open and the alerts it raises. Two accounts against one sandbox over HTTP, each with one
// order whose local amount disagrees with the provider: the same finding in both accounts is two cases
// and two alerts, each of its own account, the second account's alert not superseding the first's.

describe("a run's checks, cases and alerts belong to its account", () => {
  let t: TestDatabase;
  let sandbox: Sandbox;
  let config: Config;
  const orders: Record<string, SeededOrder[]> = {};
  let accounts: TwoAccounts;
  const ACCOUNTS = ['in-main', 'ng-brand'] as const;

  beforeAll(async () => {
    t = await createTestDatabase('reconcile_accounts_findings');
    accounts = await startTwoAccounts(t);
    ({ sandbox, config } = accounts);
    for (const [id, seed] of [
      ['in-main', 1],
      ['ng-brand', 2],
    ] as const) {
      orders[id] = await seedAccountOrders(t, config, id, seed);
      // One payment per account recorded locally at another amount than the provider holds: an AMOUNT mismatch.
      const [payment] = await t.db.knex('payment_orders').where({ account_id: id }).orderBy('id').limit(1).select('id', 'merchant_ref');
      await t.db
        .knex('payment_orders')
        .where({ id: payment.id })
        .update({ amount: t.db.knex.raw('amount + 1') });
    }
    await new SandboxControl(sandbox.url).advanceClock(2_000);
  });
  afterAll(async () => {
    await accounts?.close();
    await t?.drop();
  });

  const today = () => new Date().toISOString().slice(0, 10);
  const context = () => ({ config, db: t.db, logger: silentLogger });

  it('each account run: its items, its cases and its alerts carry its id, never "default"', async () => {
    for (const account of ACCOUNTS) {
      const r = await reconcileJob({ progress: false, date: today(), account }, context());
      expect(r.outcome.runs.map((run) => run.status)).toEqual(['completed']);
      expect(r.outcome.runs[0].checked).toBe(5);
    }
    const runs = await t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id').select('id', 'account_id');
    expect(runs.map((r: { account_id: string }) => r.account_id)).toEqual([...ACCOUNTS]);

    // Items: each run's 5 checks carry its account, and each is of an order of that account.
    const items = await t.db.knex('recon_items').select('run_id', 'account_id', 'merchant_ref', 'verdict', 'codes');
    expect(items).toHaveLength(10);
    for (const { id: runId, account_id: account } of runs as Array<{ id: string; account_id: string }>) {
      const ofRun = items.filter((i: { run_id: string }) => String(i.run_id) === String(runId));
      expect(ofRun).toHaveLength(5);
      expect(new Set(ofRun.map((i: { account_id: string }) => i.account_id))).toEqual(new Set([account]));
      expect(ofRun.map((i: { merchant_ref: string }) => i.merchant_ref).sort()).toEqual(orders[account].map((o) => o.merchantRef).sort());
      // Exactly the one changed payment is in mismatch (AMOUNT) in each account.
      const mismatched = ofRun.filter((i: { verdict: string }) => i.verdict === 'mismatch');
      expect(mismatched).toHaveLength(1);
      expect(mismatched[0].codes).toContain('AMOUNT');
    }

    // Cases: one AMOUNT case per account, of that account's order.
    const cases = await t.db.knex('cases').orderBy('id').select('account_id', 'code', 'merchant_ref', 'state');
    const amountCases = cases.filter((c: { code: string }) => c.code === 'AMOUNT');
    expect(amountCases.map((c: { account_id: string }) => c.account_id)).toEqual([...ACCOUNTS]);
    for (const c of amountCases as Array<{ account_id: (typeof ACCOUNTS)[number]; merchant_ref: string; state: string }>) {
      expect(orders[c.account_id].map((o) => o.merchantRef)).toContain(c.merchant_ref);
      expect(c.state).toBe('open');
    }
    expect(cases.filter((c: { account_id: string }) => c.account_id === 'default')).toEqual([]);

    // Alerts: the same finding (mismatches of the reconcile job) in two accounts is two alerts, each its
    // account's and of its run, with fingerprints apart: the second did not suppress or supersede the first.
    const alerts = await t.db
      .knex('alerts')
      .where({ kind: 'mismatches' })
      .orderBy('id')
      .select('account_id', 'run_id', 'fingerprint', 'status');
    expect(alerts.map((a: { account_id: string }) => a.account_id)).toEqual([...ACCOUNTS]);
    expect(alerts.map((a: { run_id: string }) => String(a.run_id))).toEqual(runs.map((r: { id: string }) => String(r.id)));
    expect(new Set(alerts.map((a: { fingerprint: string }) => a.fingerprint)).size).toBe(2);
    expect(alerts.map((a: { status: string }) => a.status)).not.toContain('suppressed');
    expect(await t.db.knex('alerts').where({ account_id: 'default' }).select('id')).toEqual([]);
  });

  it("a later run of one account raises under its own fingerprint only: the other account's alert is untouched", async () => {
    const before = await t.db.knex('alerts').where({ kind: 'mismatches', account_id: 'ng-brand' }).first('id', 'status', 'resolved_at');
    const r = await reconcileJob({ progress: false, date: today(), account: 'in-main' }, context());
    expect(r.outcome.runs.map((run) => run.status)).toEqual(['completed']);
    const inMain = await t.db
      .knex('alerts')
      .where({ kind: 'mismatches', account_id: 'in-main' })
      .orderBy('id')
      .select('fingerprint', 'run_id');
    expect(inMain).toHaveLength(2);
    expect(inMain[1].fingerprint).toBe(inMain[0].fingerprint);
    expect(String(inMain[1].run_id)).toBe(String(r.outcome.runs[0].runId));
    const after = await t.db.knex('alerts').where({ kind: 'mismatches', account_id: 'ng-brand' }).first('id', 'status', 'resolved_at');
    expect(after).toEqual(before);
    const items = await t.db.knex('recon_items').where({ run_id: r.outcome.runs[0].runId }).select('account_id');
    expect(new Set(items.map((i: { account_id: string }) => i.account_id))).toEqual(new Set(['in-main']));
  });
});
