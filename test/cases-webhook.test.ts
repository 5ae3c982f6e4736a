import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCase, orderSubject, unknownOrderSubject } from '../src/db/cases.ts';
import { storeWebhookEvent } from '../src/db/webhook-events.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { confirmWebhookEvent } from '../src/webhook/confirm.ts';
import { createWorld, type World } from './helpers/world.ts';

/** Findings only a notification brings open cases too: an order unknown here, a final status reversed. */
describe('cases from confirmed notifications (sandbox)', () => {
  let world: World;
  let orders: SeededOrder[];
  const notify = async (o: SeededOrder, key: string) => {
    const p = (await world.control.getOrder(o.transactionRef))!;
    const stored = await storeWebhookEvent(world.t.db.knex, {
      direction: 'payment',
      dedupeKey: key,
      transactionRef: o.transactionRef,
      merchantRef: p.merchantRef,
      currency: p.currency,
      method: p.method,
      amount: p.amount,
      paidAmount: p.paidAmount,
      fee: p.fee,
      status: p.status,
      rawBody: '{}',
      headers: {},
      receivedAt: new Date(),
    });
    return confirmWebhookEvent({ db: world.t.db, client: world.client }, stored.id);
  };

  beforeAll(async () => {
    world = await createWorld('cases_webhook');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 2, payouts: 0, seed: 5 });
    await world.control.advanceClock(2_000);
  }, 120_000);
  afterAll(() => world?.close());

  it('a confirmed notification for an order the merchant has no record of opens UNKNOWN_ORDER', async () => {
    const o = orders[0];
    await world.t.db.knex('payment_orders').where({ transaction_ref: o.transactionRef }).delete();
    expect(await notify(o, 'unknown-1')).toBe('confirmed');
    const c = await findCase(world.t.db.knex, unknownOrderSubject('payment', o.transactionRef), 'UNKNOWN_ORDER');
    expect(c).toMatchObject({ state: 'open', transactionRef: o.transactionRef, merchantRef: o.merchantRef, currency: o.currency });
    expect(String(c!.finding.note)).toContain('has no order here');
  });

  it('a final local order the provider now reports final the other way opens STATUS', async () => {
    const o = orders[1];
    const { knex } = world.t.db;
    await knex('payment_orders').where({ transaction_ref: o.transactionRef }).update({ status: 'Success', status_category: 'success' });
    await world.control.setOrder(o.transactionRef, { status: 'Failed' });
    expect(await notify(o, 'reversal-1')).toBe('confirmed');
    const id = (await knex('payment_orders').where({ transaction_ref: o.transactionRef }).first()).id;
    const c = await findCase(knex, orderSubject('payment', String(id)), 'STATUS');
    expect(c).toMatchObject({ state: 'open', merchantRef: o.merchantRef, finding: { local: 'Success', provider: 'Failed' } });
  });
});
