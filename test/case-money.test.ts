/**
 * Issue 39: the amount at risk of every case with money at stake, on Postgres and PGlite alike, for
 * cases made the way the product makes them (orders checked against the sandbox by reconcile), and
 * the queue's "largest at risk first" in USDT across currencies, ties oldest first.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';
import { availableEngines } from './helpers/db.ts';
import { insertOrders } from '../src/db/orders.ts';
import { insertRateSnapshot } from '../src/db/snapshots.ts';
import { selectCasePage, type CasePage } from '../src/db/case-queue.ts';
import { getCase, type StoredCase } from '../src/db/cases.ts';
import { rowsOf } from '../src/db/row.ts';
import type { Currency } from '../src/money/decimal.ts';

const T0 = new Date('2026-11-20T08:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

describe.each(availableEngines)('the amount at risk through the reconcile path (%s)', (engine) => {
  let world: World;
  const ref: Record<string, string> = {};

  /** A payment recorded here and at the provider, then settled at the provider with `patch`, checked at `checkAt`. */
  const payment = async (name: string, currency: Currency, amount: string, patch: Record<string, string>, checkAt: Date, known = true) => {
    const merchantRef = `${name}-${randomUUID()}`;
    const base = { merchantRef, currency, method: { INR: 'NATIVE', IDR: 'QRIS', NGN: 'TRANSFER' }[currency], amount };
    const transactionRef = known
      ? (
          await world.client.initiatePayment({
            ...base,
            name: 'Asha',
            phone: '+919812345678',
            email: 'a@example.com',
            redirectUrl: 'https://merchant.example/return',
          })
        ).transactionRef
      : `NOPE${randomUUID().replaceAll('-', '')}`;
    await insertOrders(world.t.db.knex, 'payment', [
      { ...base, transactionRef, status: 'Initiated', statusCategory: 'pending', createdAt: checkAt },
    ]);
    if (known) await world.control.setOrder(transactionRef, { status: 'Success', paidAmount: amount, ...patch });
    await reconcileWorld(world, { request: { ref: transactionRef }, clock: () => checkAt, concurrency: 1 });
    ref[name] = transactionRef;
  };

  const caseOf = async (name: string): Promise<StoredCase> => {
    const rows = rowsOf(await world.t.db.knex.raw(`SELECT id::text AS id FROM cases WHERE transaction_ref = ?`, [ref[name]]));
    expect(rows, name).toHaveLength(1);
    return (await getCase(world.t.db.knex, String(rows[0].id)))!;
  };

  beforeAll(async () => {
    world = await createWorld(`case_money_${engine}`, { db: { engine } });
    const rate = (currency: Currency, deposit: string, withdraw: string) =>
      insertRateSnapshot(world.t.db.knex, { runId: null, currency, deposit, withdraw, takenAt: T0, flags: [] });
    await rate('INR', '80', '82');
    await rate('IDR', '16000', '16200');
    // Underpaid by 100,000 IDR (6.25 USDT): the largest at stake, though not the oldest.
    await payment('idr', 'IDR', '250000.00', { paidAmount: '150000.00' }, minutes(30));
    // Underpaid by 10.00 INR twice (0.125 USDT each): equal at stake, the older first.
    await payment('inrOld', 'INR', '1000.00', { paidAmount: '990.00' }, minutes(10));
    await payment('inrNew', 'INR', '1000.00', { paidAmount: '990.00' }, minutes(20));
    // Overpaid by 1.60 INR (0.02 USDT).
    await payment('inrOver', 'INR', '500.00', { paidAmount: '501.60' }, minutes(5));
    // The provider does not know it: nothing at stake, however new.
    await payment('missing', 'INR', '700.00', {}, minutes(40), false);
    // NGN has no rate yet: priced when its first rate arrives (below), 5,000 NGN short.
    await payment('ngn', 'NGN', '20000.00', { paidAmount: '15000.00' }, minutes(1));
  }, 180_000);
  afterAll(() => world?.close());

  it('stores the signed difference (provider - local), its magnitude and its USDT value at the rate of the order’s day', async () => {
    expect(await caseOf('idr')).toMatchObject({
      code: 'PAID_AMOUNT',
      difference: '-100000.00',
      atRisk: '100000.00',
      atRiskUsdt: '6.250000',
    });
    expect(await caseOf('inrOld')).toMatchObject({ difference: '-10.00', atRisk: '10.00', atRiskUsdt: '0.125000' });
    expect(await caseOf('inrOver')).toMatchObject({ difference: '1.60', atRisk: '1.60', atRiskUsdt: '0.020000' });
    expect(await caseOf('missing')).toMatchObject({ code: 'NOT_FOUND', difference: null, atRisk: null, atRiskUsdt: null });
    expect(await caseOf('ngn')).toMatchObject({ difference: '-5000.00', atRisk: '5000.00', atRiskUsdt: null });
  });

  it('sorts by risk in USDT across currencies, ties oldest first, nothing at stake last; paging keeps the order', async () => {
    await insertRateSnapshot(world.t.db.knex, {
      runId: null,
      currency: 'NGN',
      deposit: '1600',
      withdraw: '1650',
      takenAt: minutes(50),
      flags: [],
    });
    expect(await caseOf('ngn')).toMatchObject({ atRiskUsdt: '3.125000' });

    const filter = { states: ['open', 'acknowledged'] as const };
    const order: string[] = [];
    let page: CasePage = await selectCasePage(world.t.db.knex, { states: [...filter.states] }, { sort: 'risk', limit: 2 });
    for (;;) {
      order.push(...page.cases.map((c) => c.transactionRef!));
      if (!page.next) break;
      page = await selectCasePage(world.t.db.knex, { states: [...filter.states] }, { sort: 'risk', limit: 2, after: page.next });
    }
    const names = order.map((r) => Object.entries(ref).find(([, v]) => v === r)?.[0]);
    expect(names).toEqual(['idr', 'ngn', 'inrOld', 'inrNew', 'inrOver', 'missing']);
    // And back from the end, the same order.
    const last = await selectCasePage(world.t.db.knex, { states: [...filter.states] }, { sort: 'risk', limit: 4, before: 'end' });
    expect(last.cases.map((c) => c.transactionRef)).toEqual(order.slice(4));
    const prev = await selectCasePage(world.t.db.knex, { states: [...filter.states] }, { sort: 'risk', limit: 4, before: last.prev! });
    expect(prev.cases.map((c) => c.transactionRef)).toEqual(order.slice(0, 4));
  });
});
