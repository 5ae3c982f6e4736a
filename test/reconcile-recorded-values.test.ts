// A value the merchant recorded is never overwritten by a provider value that disagrees with it (issue 25
// item 1): the finding and its case survive the next check, which would otherwise find the two equal and
// close the case as cleared-by-recheck. Where the merchant recorded nothing, the provider's value is taken.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';
import { insertOrders } from '../src/db/orders.ts';
import type { Direction } from '../src/domain/types.ts';
import type { OrderPatch } from '../src/sandbox/control-client.ts';

const DAY = 86_400_000;

interface Row {
  name: string;
  direction: Direction;
  /** What the merchant recorded beside the pending order; 'initiate' takes the fee payout initiate returned. */
  local: { fee?: string | null | 'initiate'; paidAmount?: string; utr?: string };
  /** What the provider answers once final (patched into the sandbox's order). */
  provider: OrderPatch;
  /** Codes of both checks; verdicts of the first and second check. */
  codes: string[];
  verdicts: [string, string];
  /** The order's columns after both checks. */
  order: Record<string, string | null>;
}

const rows: Row[] = [
  {
    name: 'payout fee recorded 50.00, provider 50.01',
    direction: 'payout',
    local: { fee: '50.00' },
    provider: { fee: '50.01' },
    codes: ['FEE'],
    verdicts: ['mismatch', 'mismatch'],
    order: { fee: '50.00', provider_fee: '50.01', status_category: 'success' },
  },
  {
    name: 'payout fee recorded 50.00, provider 50.01 without UTR',
    direction: 'payout',
    local: { fee: '50.00' },
    provider: { fee: '50.01', utr: '' },
    codes: ['FEE', 'UTR_MISSING'],
    verdicts: ['mismatch', 'mismatch'],
    order: { fee: '50.00', provider_fee: '50.01', utr: null },
  },
  {
    name: 'payout UTR recorded UTRMINE01, provider UTRTHEIRS1',
    direction: 'payout',
    local: { fee: 'initiate', utr: 'UTRMINE01' },
    provider: { utr: 'UTRTHEIRS1' },
    codes: ['UTR'],
    verdicts: ['mismatch', 'mismatch'],
    order: { utr: 'UTRMINE01' },
  },
  {
    name: 'payment paidAmount recorded 900.00, provider paid 1000.00',
    direction: 'payment',
    local: { paidAmount: '900.00' },
    provider: { fee: '15.00' },
    codes: ['PAID_AMOUNT'],
    verdicts: ['mismatch', 'mismatch'],
    order: { paid_amount: '900.00', provider_paid_amount: '1000', fee: '15' },
  },
  {
    name: 'payment fee recorded 10.00, provider 12.34',
    direction: 'payment',
    local: { fee: '10.00' },
    provider: { fee: '12.34' },
    codes: ['FEE'],
    verdicts: ['mismatch', 'mismatch'],
    order: { fee: '10.00', provider_fee: '12.34', paid_amount: '1000' },
  },
  {
    name: 'payout with no fee recorded: the provider fee 50.01 is taken, then matches',
    direction: 'payout',
    local: { fee: null },
    provider: { fee: '50.01' },
    codes: [],
    verdicts: ['resolved', 'matched'],
    order: { fee: '50.01', provider_fee: '50.01' },
  },
];

describe('a check never overwrites what the merchant recorded', () => {
  let world: World;
  const placed = new Map<string, { id: string; direction: Direction; transactionRef: string }>();
  const start = Date.now();
  const sweepAt = (days: number) => reconcileWorld(world, { clock: () => new Date(start + days * DAY), finalRecheckDays: 1 });

  beforeAll(async () => {
    world = await createWorld('recorded_values');
    await world.control.adjustBalance('INR', '1000000');
    for (const row of rows) {
      const merchantRef = randomUUID();
      const person = { name: 'Asha Rao', phone: '+919812345678', email: 'asha@example.com' };
      if (row.direction === 'payout') {
        const out = await world.client.initiatePayout({
          merchantRef,
          currency: 'INR',
          method: 'IFSC',
          bankCode: 'HDFC0001234',
          amount: '5000.00',
          account: '001234567890',
          ...person,
        });
        const fee = row.local.fee === 'initiate' ? out.fee : (row.local.fee ?? null);
        const [o] = await insertOrders(world.t.db.knex, 'payout', [
          {
            merchantRef,
            transactionRef: out.transactionRef,
            currency: 'INR',
            method: 'IFSC',
            amount: '5000.00',
            bankCode: 'HDFC0001234',
            fee,
            utr: row.local.utr ?? null,
          },
        ]);
        placed.set(row.name, { id: o.id, direction: 'payout', transactionRef: out.transactionRef });
      } else {
        const pay = await world.client.initiatePayment({
          merchantRef,
          currency: 'NGN',
          method: 'TRANSFER',
          amount: '1000.00',
          redirectUrl: 'https://shop.example.com/done',
          ...person,
        });
        const [o] = await insertOrders(world.t.db.knex, 'payment', [
          {
            merchantRef,
            transactionRef: pay.transactionRef,
            currency: 'NGN',
            method: 'TRANSFER',
            amount: '1000.00',
            fee: row.local.fee === 'initiate' ? null : (row.local.fee ?? null),
            paidAmount: row.local.paidAmount ?? null,
          },
        ]);
        placed.set(row.name, { id: o.id, direction: 'payment', transactionRef: pay.transactionRef });
      }
    }
    // Every order final at the provider, then given the provider's value of the row.
    await world.control.advanceClock(2_000);
    for (const row of rows) {
      const { transactionRef } = placed.get(row.name)!;
      expect((await world.control.getOrder(transactionRef))!.status).toBe('Success');
      await world.control.setOrder(transactionRef, row.provider);
    }
  });
  afterAll(() => world?.close());

  const itemsOf = async (runId: string) => {
    const items = await world.t.db
      .knex('recon_items')
      .where({ run_id: runId })
      .select('direction', 'order_id', 'verdict', 'codes', 'reason');
    return new Map(
      items.map((i: { direction: string; order_id: string; verdict: string; codes: string[]; reason: string }) => [
        `${i.direction}:${i.order_id}`,
        i,
      ]),
    );
  };

  it('keeps each finding and its open case across two consecutive checks', async () => {
    const first = await sweepAt(0);
    expect(first.runs[0]).toMatchObject({ status: 'completed', checked: rows.length });
    const second = await sweepAt(2);
    expect(second.runs[0]).toMatchObject({ status: 'completed', checked: rows.length });
    const checks = [await itemsOf(first.runs[0].runId), await itemsOf(second.runs[0].runId)];

    for (const row of rows) {
      const { id, direction } = placed.get(row.name)!;
      for (const [n, items] of checks.entries()) {
        expect(items.get(`${direction}:${id}`), `${row.name}, check ${n + 1}`).toMatchObject({
          verdict: row.verdicts[n],
          codes: row.codes,
        });
      }
      const order = await world.t.db.knex(`${direction}_orders`).where({ id }).first();
      expect(order, row.name).toMatchObject(row.order);
      const cases = await world.t.db.knex('cases').where({ direction, order_id: id }).orderBy('code').select('code', 'state', 'seen_count');
      expect(cases, row.name).toEqual(row.codes.map((code) => ({ code, state: 'open', seen_count: 2 })));
    }
    const taken = checks[0].get(`payout:${placed.get(rows[rows.length - 1].name)!.id}`)!;
    expect(taken.reason).toMatch(/^resolved: Initiated → Success; fee 50.01, utr \w+ taken from the provider \(none recorded\)$/);
  });
});
