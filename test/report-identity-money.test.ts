/**
 * Issue 25, item 6: money of the wrong currency must not land in a currency's totals. An order whose
 * provider record is in another currency (CURRENCY) or is another order (MERCHANT_REF) is counted in
 * summary_orders.csv but adds nothing to its money; that money is shown apart, in the provider's
 * currency, in summary_identity_mismatches.csv.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';
import { insertOrders } from '../src/db/orders.ts';
import { writeReports } from '../src/report/write-reports.ts';

describe('identity mismatches in the day summary (sandbox, real report writer)', () => {
  let world: World;
  const refs: Record<'same' | 'ngn' | 'other', string> = { same: '', ngn: '', other: '' };

  /** An INR payment of 1000.00 known to both sides, then set at the provider to Success with `patch`. */
  const payment = async (patch: Record<string, string>) => {
    const merchantRef = randomUUID();
    const base = { merchantRef, currency: 'INR' as const, method: 'NATIVE', amount: '1000.00' };
    const p = await world.client.initiatePayment({
      ...base,
      name: 'Asha',
      phone: '+919812345678',
      email: 'a@example.com',
      redirectUrl: 'https://merchant.example/return',
    });
    await insertOrders(world.t.db.knex, 'payment', [
      { ...base, transactionRef: p.transactionRef, status: 'Initiated', statusCategory: 'pending', createdAt: new Date() },
    ]);
    await world.control.setOrder(p.transactionRef, { status: 'Success', paidAmount: '1000.00', fee: '20.00', ...patch });
    return p.transactionRef;
  };

  beforeAll(async () => {
    world = await createWorld('report_identity_money');
    refs.same = await payment({});
    // The provider holds this one as NGN 1000.00: naira, not rupees.
    refs.ngn = await payment({ currency: 'NGN', fee: '5.00' });
    // The provider's record belongs to another merchantRef: another order's money.
    refs.other = await payment({ merchantRef: randomUUID(), paidAmount: '1000.00', fee: '7.00' });
    const now = new Date();
    for (const ref of Object.values(refs)) await reconcileWorld(world, { request: { ref }, clock: () => now, concurrency: 1 });
  });
  afterAll(() => world?.close());

  it("recon_items stores the provider's currency", async () => {
    const items = await world.t.db.knex('recon_items').whereIn('transaction_ref', Object.values(refs));
    const by = (ref: string) => items.find((i) => i.transaction_ref === ref);
    expect(by(refs.same)).toMatchObject({ currency: 'INR', provider_currency: 'INR', codes: [] });
    expect(by(refs.ngn)).toMatchObject({ currency: 'INR', provider_currency: 'NGN', verdict: 'mismatch' });
    expect(by(refs.ngn).codes).toContain('CURRENCY');
    expect(by(refs.other)).toMatchObject({ provider_currency: 'INR', verdict: 'mismatch' });
    expect(by(refs.other).codes).toContain('MERCHANT_REF');
  });

  it("summary_orders.csv counts the CURRENCY and MERCHANT_REF orders but sums only the order's own money; summary_identity_mismatches.csv shows theirs apart", async () => {
    const now = new Date();
    const date = now.toISOString().slice(0, 10);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-identity-'));
    const r = await writeReports(world.t.db, { date, timezone: 'UTC', reportDir, now, currencies: ['INR', 'NGN'] });
    const read = (name: string) =>
      parse(fs.readFileSync(path.join(r.directory, name)), { columns: true, bom: true }) as Record<string, string>[];

    const orders = read('summary_orders.csv');
    const row = (currency: string, direction: string) => orders.find((o) => o.currency === currency && o.direction === direction);
    expect(row('INR', 'payment')).toMatchObject({
      orders: '3',
      provider_success: '3',
      mismatch: '2',
      // The one order whose provider record is its own: 1000.00 paid, 20.00 fee.
      gross: '1000.00',
      paid: '1000.00',
      fees: '20.00',
      net: '980.00',
      identity_mismatches: '2',
    });
    expect(row('INR', 'total')).toMatchObject({ gross: '1000.00', net: '980.00', identity_mismatches: '2' });
    // The naira the provider holds are in no currency's settled money, NGN's included.
    expect(row('NGN', 'payment')).toMatchObject({ orders: '0', gross: '0.00', net: '0.00', identity_mismatches: '0' });

    expect(read('summary_identity_mismatches.csv')).toEqual([
      {
        currency: 'INR',
        direction: 'payment',
        order_currency: 'INR',
        orders: '1',
        provider_success: '1',
        amount: '1000.00',
        fees: '7.00',
      },
      {
        currency: 'NGN',
        direction: 'payment',
        order_currency: 'INR',
        orders: '1',
        provider_success: '1',
        amount: '1000.00',
        fees: '5.00',
      },
    ]);
    expect(r.manifest.files['summary_identity_mismatches.csv'].rows).toBe(2);
  });
});
