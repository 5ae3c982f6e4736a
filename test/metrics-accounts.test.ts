// /metrics with several provider accounts: the per-account families carry `account`, only ever a
// configured id (a row of any other account is left out, so the label's cardinality is the config's);
// with one account the label is absent and the output is as before accounts existed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import { PayreconMetrics } from '../src/metrics/metrics.ts';

const AT = new Date('2026-11-20T06:00:00Z');
const samples = (text: string, family: string) => text.split('\n').filter((l) => l.startsWith(`${family}{`));
const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('metrics per account', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('metrics_accounts');
    // Cases 1-3 in-main, 4-6 ng-brand, 7-9 an account no longer configured: one FEE/INR, AMOUNT/NGN, STATUS/IDR each.
    await seedOpenCases(t.db.knex, 9, AT);
    await t.db.knex.raw(
      `UPDATE cases SET account_id = CASE WHEN order_id <= 3 THEN 'in-main' WHEN order_id <= 6 THEN 'ng-brand' ELSE 'gone' END`,
    );
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('several accounts: per-account series labelled by configured ids only, never another value', async () => {
    const m = new PayreconMetrics({ defaultMetrics: false });
    m.useAccounts(['in-main', 'ng-brand']);
    m.providerRequest('paymentFetch', '200', 0.01, 'in-main');
    m.providerRequest('paymentFetch', '429', 0.01, 'ng-brand');
    m.providerRequest('paymentFetch', '200', 0.01, 'ghost');
    m.orderChecked('payment', 'matched', 4, 'in-main');
    m.orderChecked('payment', 'matched', 7, 'intruder');
    m.jobFinished('reconcile', 'success', AT, 'ng-brand');
    m.jobFinished('reconcile', 'success', AT, 'intruder');
    await m.refreshFromDatabase(t.db.knex, { timeoutMs: 5000 });
    const { body } = await m.render();

    expect(value(body, 'payrecon_provider_requests_total{operation="paymentFetch",status="200",account="in-main"}')).toBe(1);
    expect(value(body, 'payrecon_provider_requests_total{operation="paymentFetch",status="429",account="ng-brand"}')).toBe(1);
    // Reachability per account: ng-brand's MerchantID refused while in-main's answers.
    expect(samples(body, 'payrecon_provider_reachable')).toEqual([
      'payrecon_provider_reachable{operation="paymentFetch",account="in-main"} 1',
      'payrecon_provider_reachable{operation="paymentFetch",account="ng-brand"} 0',
    ]);
    expect(value(body, 'payrecon_orders_checked_total{direction="payment",verdict="matched",account="in-main"}')).toBe(4);
    expect(value(body, 'payrecon_orders_checked_total{direction="payment",verdict="matched",account="ng-brand"}')).toBe(0);
    expect(value(body, 'payrecon_job_runs_total{payrecon_job="reconcile",outcome="success",account="ng-brand"}')).toBe(1);
    expect(value(body, 'payrecon_job_runs_total{payrecon_job="reconcile",outcome="success",account="in-main"}')).toBe(0);
    expect(value(body, 'payrecon_open_cases{code="FEE",currency="INR",account="in-main"}')).toBe(1);
    expect(value(body, 'payrecon_open_cases{code="STATUS",currency="IDR",account="ng-brand"}')).toBe(1);
    expect(samples(body, 'payrecon_open_cases')).toHaveLength(6);
    expect(value(body, 'payrecon_report_emails_pending{account="in-main"}')).toBe(0);
    // Every `account` value in the whole exposition is a configured id.
    const values = new Set([...body.matchAll(/account="([^"]*)"/g)].map((x) => x[1]));
    expect([...values].sort()).toEqual(['in-main', 'ng-brand']);
    // Every per-account family has its account on every sample (none left unlabelled beside them).
    for (const family of [
      'payrecon_job_runs_total',
      'payrecon_orders_checked_total',
      'payrecon_open_cases',
      'payrecon_report_emails_pending',
    ])
      for (const line of samples(body, family)) expect(line, family).toMatch(/account="/);
  });

  it('one account: no account label, the series as before accounts (rows summed across account ids)', async () => {
    const m = new PayreconMetrics({ defaultMetrics: false });
    m.useAccounts(['default']);
    m.providerRequest('paymentFetch', '200', 0.01, 'default');
    m.orderChecked('payment', 'matched', 2, 'default');
    await m.refreshFromDatabase(t.db.knex, { timeoutMs: 5000 });
    const { body } = await m.render();
    expect(body).not.toMatch(/account=/);
    expect(value(body, 'payrecon_provider_requests_total{operation="paymentFetch",status="200"}')).toBe(1);
    expect(value(body, 'payrecon_orders_checked_total{direction="payment",verdict="matched"}')).toBe(2);
    expect(value(body, 'payrecon_open_cases{code="FEE",currency="INR"}')).toBe(3);
    expect(value(body, 'payrecon_report_emails_pending')).toBe(0);
  });
});
