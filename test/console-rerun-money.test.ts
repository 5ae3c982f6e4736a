import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { insertOrders, type OrderRow } from '../src/db/orders.ts';
import { insertItems } from '../src/db/items.ts';
import { createRun } from '../src/db/runs.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { findUserByName } from '../src/db/console-users.ts';
import { claimNextRerun, enqueueRerun, finishRerun } from '../src/db/console-reruns.ts';

// A rerun's outcome leads with money (issue 39): per currency what is at risk before and after, then the
// orders that changed, largest move in money first; the send button above all of it.
const DAY = '2026-11-21';
let t: TestDatabase;
let app: FastifyInstance;
let reportDir: string;
let rerunId: string;
let orders: Record<string, OrderRow>;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

interface Seen {
  amount?: string;
  fee?: string;
  codes: string[];
}

/** One reconcile run's checks: what the provider said per order (its amount and fee; the local ones are the order's). */
async function check(seen: Record<string, Seen>): Promise<void> {
  clock.advance(60_000);
  const run = await createRun(t.db.knex, 'reconcile', {}, { dryRun: false, now: clock.now() });
  await insertItems(
    t.db.knex,
    Object.entries(seen).map(([ref, s]) => {
      const o = orders[ref];
      return {
        runId: run.id,
        direction: 'payment' as const,
        orderId: o.id,
        merchantRef: o.merchantRef,
        transactionRef: o.transactionRef,
        currency: o.currency,
        method: o.method,
        checkedAt: clock.now(),
        localStatus: 'Success',
        localCategory: 'success',
        localAmount: o.amount,
        localPaidAmount: null,
        localFee: '10',
        localUtr: null,
        providerStatus: 'Success',
        providerCategory: 'success',
        providerCurrency: o.currency,
        providerAmount: s.amount ?? o.amount,
        providerPaidAmount: null,
        providerFee: s.fee ?? '10',
        providerUtr: null,
        verdict: s.codes.length ? ('mismatch' as const) : ('matched' as const),
        codes: s.codes,
        details: [],
        reason: s.codes.join('; '),
      };
    }),
  );
}

const report = () => writeReports(t.db, { date: DAY, timezone: 'UTC', reportDir, now: clock.now() });

beforeAll(async () => {
  reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-rerun-money-'));
  t = await createTestDatabase('console_rerun_money', {
    env: {
      REPORT_DIR: reportDir,
      PROVIDER_BASE_URL: 'http://127.0.0.1:9',
      SMTP_URL: 'smtp://127.0.0.1:9',
      REPORT_EMAIL_TO: 'a@merchant.example',
    },
  });
  await addUsers(t, clock, { fiona: 'finance' });
  const order = (ref: string, currency: 'NGN' | 'IDR', amount: string) => ({
    merchantRef: ref,
    transactionRef: `tx-${ref}`,
    currency,
    method: 'card',
    amount,
    fee: '10',
    createdAt: new Date(`${DAY}T09:00:00Z`),
  });
  const rows = await insertOrders(t.db.knex, 'payment', [
    order('ngn-amount', 'NGN', '5000'),
    order('idr-amount', 'IDR', '150000'),
    order('ngn-fee', 'NGN', '700'),
  ]);
  orders = Object.fromEntries(rows.map((r) => [r.merchantRef, r]));
  // v1: NGN 100 over on one order, IDR 10,000 short on another.
  await check({
    'ngn-amount': { amount: '5100', codes: ['AMOUNT'] },
    'idr-amount': { amount: '140000', codes: ['AMOUNT'] },
    'ngn-fee': { codes: [] },
  });
  expect((await report()).record!.version).toBe(1);
  // The rerun: the NGN amount now agrees, a fee 15 over appears, the IDR shortfall stays.
  await check({
    'ngn-amount': { codes: [] },
    'idr-amount': { amount: '140000', codes: ['AMOUNT'] },
    'ngn-fee': { fee: '25', codes: ['FEE'] },
  });
  expect((await report()).record!.version).toBe(2);
  const fiona = (await findUserByName(t.db.knex, 'fiona'))!;
  rerunId = (await enqueueRerun(t.db.knex, { businessDate: DAY, userId: fiona.id, now: clock.now() })).id;
  await claimNextRerun(t.db.knex, clock.now());
  await finishRerun(t.db.knex, rerunId, { state: 'completed', reconcileRunIds: [], reportVersion: 2, error: null, now: clock.now() });
  app = await buildTestConsole(t, clock);
});
afterAll(async () => {
  await app?.close();
  await t?.drop();
  fs.rmSync(reportDir, { recursive: true, force: true });
});

const cells = (row: string) => [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1].replace(/<[^>]+>/g, '').trim());

describe('a rerun outcome leads with money', () => {
  it('records each order’s currency, signed difference and amount at risk with the version', async () => {
    const rows = await t.db
      .knex('report_version_orders as r')
      .join('report_versions as v', 'v.id', 'r.version_id')
      .join('payment_orders as o', 'o.id', 'r.order_id')
      .orderBy(['v.version', 'o.merchant_ref'])
      .select(
        'v.version',
        'o.merchant_ref',
        'r.currency',
        t.db.knex.raw('r.difference::text AS difference'),
        t.db.knex.raw('r.at_risk::text AS at_risk'),
      );
    expect(rows).toEqual([
      { version: 1, merchant_ref: 'idr-amount', currency: 'IDR', difference: '-10000', at_risk: '10000' },
      { version: 1, merchant_ref: 'ngn-amount', currency: 'NGN', difference: '100', at_risk: '100' },
      { version: 1, merchant_ref: 'ngn-fee', currency: 'NGN', difference: null, at_risk: null },
      { version: 2, merchant_ref: 'idr-amount', currency: 'IDR', difference: '-10000', at_risk: '10000' },
      { version: 2, merchant_ref: 'ngn-amount', currency: 'NGN', difference: null, at_risk: null },
      { version: 2, merchant_ref: 'ngn-fee', currency: 'NGN', difference: '15', at_risk: '15' },
    ]);
  });

  it('shows the send button, then per currency at risk v1 → v2, then the changed orders by money, then the verdict counts', async () => {
    const agent = new Agent(app);
    await agent.login('fiona');
    const body = (await agent.get(`/reruns/${rerunId}`)).body;
    const send = body.indexOf('Send v2 to accounting');
    const money = body.indexOf('id="money"');
    const changed = body.indexOf('id="changed"');
    const verdicts = body.indexOf('id="headline"');
    expect(send).toBeGreaterThan(0);
    expect([send < money, money < changed, changed < verdicts]).toEqual([true, true, true]);

    const moneyRows = body.slice(money, changed).split('<tr>').slice(2).map(cells);
    // currency, at risk v1, at risk v2, change, net difference v1, v2, orders at stake v1, v2
    expect(moneyRows).toEqual([
      ['IDR', '10,000.00', '10,000.00', '', '-10,000.00', '-10,000.00', '1', '1'],
      ['NGN', '100.00', '15.00', '−85.00', '100.00', '15.00', '1', '1'],
    ]);

    const changedRows = body.slice(changed, verdicts).split('<tr>').slice(2).map(cells);
    // order, direction, currency, at risk v1, at risk v2, verdict v1, verdict v2: the 100 that left first
    expect(changedRows).toEqual([
      ['ngn-amount', 'payment', 'NGN', '100.00', '', 'mismatch AMOUNT', 'matched'],
      ['ngn-fee', 'payment', 'NGN', '', '15.00', 'matched', 'mismatch FEE'],
    ]);
    expect(body).toContain('2 orders changed');
  });

  it('says the amounts were not compared when a version was written before it recorded them', async () => {
    await t.db
      .knex('report_version_orders as r')
      .whereIn('version_id', t.db.knex('report_versions').where({ version: 1 }).select('id'))
      .update({ currency: null });
    const agent = new Agent(app);
    await agent.login('fiona');
    const body = (await agent.get(`/reruns/${rerunId}`)).body;
    expect(body).toContain('Amounts not compared: v1 or v2 was written before report versions recorded');
    expect(body).not.toContain('−85.00');
  });
});
