import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyChecksWithItems, type CheckRows } from '../src/db/check-writes.ts';
import { selectItemsByRun, type StoredReconItem } from '../src/db/items.ts';
import { insertOrders, type OrderRow } from '../src/db/orders.ts';
import { createRun } from '../src/db/runs.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const T0 = new Date('2024-03-01T00:00:00Z');
const hours = (h: number) => new Date(T0.getTime() + h * 3_600_000);

/** A check of `o` at `at` as checkOrder shapes it: the item's local view is the order as read. */
function checkOf(o: OrderRow, at: Date, provider: { status: string; amount: string; fee: string; utr?: string }): CheckRows {
  const mismatch = provider.amount !== o.amount;
  return {
    update: {
      id: o.id,
      expected: o,
      checkedAt: at,
      nextCheckAt: hours(5),
      providerCategory: 'success',
      providerAmount: provider.amount,
      providerFee: provider.fee,
      providerPaidAmount: o.direction === 'payment' ? provider.amount : undefined,
    },
    item: {
      direction: o.direction,
      orderId: o.id,
      merchantRef: o.merchantRef,
      transactionRef: o.transactionRef,
      currency: o.currency,
      method: o.method,
      checkedAt: at,
      localStatus: o.status,
      localCategory: o.statusCategory,
      localAmount: o.amount,
      localPaidAmount: o.paidAmount,
      localFee: o.fee,
      localUtr: o.utr,
      providerStatus: provider.status,
      providerCategory: 'success',
      providerCurrency: o.currency,
      providerAmount: provider.amount,
      providerPaidAmount: o.direction === 'payment' ? provider.amount : null,
      providerFee: provider.fee,
      providerUtr: provider.utr ?? null,
      verdict: mismatch ? 'mismatch' : 'pending',
      codes: mismatch ? ['AMOUNT'] : [],
      details: mismatch ? [{ code: 'AMOUNT', local: o.amount, provider: provider.amount, note: 'say "100", \\ {x}' }] : [],
      reason: mismatch ? 'amount, "quoted", {braced}' : 'open at the provider',
    },
  };
}

const strip = ({ id: _, runId: __, ...rest }: StoredReconItem) => rest;

describe.each(availableEngines)('applyChecksWithItems on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`check_writes_${engine}`, { engine });
  });
  afterAll(() => t?.drop());

  it('writes each order still as read and its item (the local view as read), and nothing for an order changed meanwhile', async () => {
    const k = t.db.knex;
    const run = await createRun(k, 'reconcile', {}, { dryRun: false, now: T0 });
    const pays = await insertOrders(k, 'payment', [
      {
        merchantRef: randomUUID(),
        transactionRef: randomUUID(),
        currency: 'INR',
        method: 'UPI',
        amount: '100.50',
        paidAmount: '100.5',
        fee: '1.20',
      },
      { merchantRef: randomUUID(), transactionRef: randomUUID(), currency: 'INR', method: 'UPI', amount: '7' },
      { merchantRef: randomUUID(), transactionRef: randomUUID(), currency: 'INR', method: 'UPI', amount: '9.99' },
    ]);
    const checks = pays.map((o, i) => checkOf(o, hours(1), { status: 'Success', amount: i === 1 ? '8' : o.amount, fee: '0.5' }));
    // The merchant edits the third order after the run read it: its check is not written.
    await k('payment_orders').where({ id: pays[2].id }).update({ fee: '3.00' });

    const written = await k.transaction((trx) => applyChecksWithItems(trx, run, 'payment', checks));
    expect([...written].sort()).toEqual([pays[0].id, pays[1].id].sort());
    const items = await selectItemsByRun(k, run.id);
    expect(items.map(strip)).toEqual([checks[0].item, checks[1].item]);
    expect(await k('recon_items').where({ run_id: run.id }).first('account_id')).toEqual({ account_id: run.accountId });
    const after = await k('payment_orders').whereIn('id', written).orderBy('id');
    expect(after.map((r: { check_count: number; provider_fee: string }) => [r.check_count, r.provider_fee])).toEqual([
      [1, '0.5'],
      [1, '0.5'],
    ]);

    // Written again (a run resumed after a crash): the orders moved on, so nothing is written twice.
    expect(await applyChecksWithItems(k, run, 'payment', checks.slice(0, 2))).toEqual([]);
    expect(await selectItemsByRun(k, run.id)).toHaveLength(2);
  });

  it("payouts: the item's local utr is the order's, its paid amount null", async () => {
    const k = t.db.knex;
    const run = await createRun(k, 'reconcile', {}, { dryRun: false, now: T0 });
    const [po] = await insertOrders(k, 'payout', [
      {
        merchantRef: randomUUID(),
        transactionRef: randomUUID(),
        currency: 'INR',
        method: 'BANK',
        amount: '10',
        utr: 'UTR"1,{x}',
        bankCode: 'HDFC',
      },
    ]);
    const check = checkOf(po, hours(2), { status: 'Success', amount: '10', fee: '0', utr: 'UTR2' });
    expect(await applyChecksWithItems(k, run, 'payout', [check])).toEqual([po.id]);
    const [item] = await selectItemsByRun(k, run.id);
    expect(strip(item)).toEqual(check.item);
    expect(item).toMatchObject({ localUtr: 'UTR"1,{x}', localPaidAmount: null, providerUtr: 'UTR2' });
  });

  it("refuses an item that is not its update's order or time", async () => {
    const k = t.db.knex;
    const run = await createRun(k, 'reconcile', {}, { dryRun: false, now: T0 });
    const [a, b] = await insertOrders(k, 'payment', [
      { merchantRef: randomUUID(), transactionRef: randomUUID(), currency: 'INR', method: 'UPI', amount: '1' },
      { merchantRef: randomUUID(), transactionRef: randomUUID(), currency: 'INR', method: 'UPI', amount: '2' },
    ]);
    const ca = checkOf(a, hours(1), { status: 'Success', amount: '1', fee: '0' });
    const cb = checkOf(b, hours(1), { status: 'Success', amount: '2', fee: '0' });
    await expect(applyChecksWithItems(k, run, 'payment', [{ update: ca.update, item: cb.item }])).rejects.toThrow(/not its update/);
    await expect(
      applyChecksWithItems(k, run, 'payment', [{ update: ca.update, item: { ...ca.item, checkedAt: hours(2) } }]),
    ).rejects.toThrow(/not its update/);
    expect(await selectItemsByRun(k, run.id)).toEqual([]);
  });
});
