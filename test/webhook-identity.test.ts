/**
 * Issue 14, item 4: one set of identity rules for the webhook path and reconcile. A notification the
 * provider confirms must not finalize an order that reconcile refuses to update (and the other way round).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { toLocalOrder } from '../src/reconcile/check-order.ts';
import { storeWebhookEvent } from '../src/db/webhook-events.ts';
import type { OrderRow } from '../src/db/orders.ts';
import { confirmWebhookEvent } from '../src/webhook/confirm.ts';
import { planOrderUpdate, type FetchedOrder } from '../src/webhook/judge.ts';
import { compareOrder } from '../src/recon/compare.ts';
import { resolvePolicy } from '../src/recon/policy.ts';

const NOW = new Date(Date.UTC(2026, 10, 21, 12, 0, 0));
const local = (patch: Partial<OrderRow> = {}): OrderRow => ({
  direction: 'payment',
  id: '1',
  merchantRef: 'm-1',
  transactionRef: 't-1',
  currency: 'INR',
  method: 'NATIVE',
  amount: '1000.00',
  paidAmount: null,
  fee: null,
  bankCode: null,
  utr: null,
  status: 'Initiated',
  statusCategory: 'pending',
  createdAt: new Date(NOW.getTime() - 3_600_000),
  updatedAt: NOW,
  finalizedAt: null,
  lastCheckedAt: null,
  checkCount: 0,
  nextCheckAt: null,
  ...patch,
});
const fetched: FetchedOrder = {
  transactionRef: 't-1',
  merchantRef: 'm-1',
  currency: 'INR',
  method: 'NATIVE',
  amount: '1000',
  paidAmount: '1000',
  fee: '15',
  status: 'Success',
  category: 'success',
};

describe('one set of identity rules: the webhook plan writes exactly when reconcile would', () => {
  const policy = resolvePolicy({ tolerances: { INR: '0.01' } });
  it.each([
    ['the same order', {}, {}, true],
    ['local method CARD, provider NATIVE', { method: 'CARD' }, {}, false],
    ['method differing only by surrounding spaces', { method: ' NATIVE ' }, {}, true],
    ['currency differs', { currency: 'NGN' as const }, {}, false],
    ['merchantRef differs', { merchantRef: 'm-2' }, {}, false],
    ['amount differs beyond the tolerance', { amount: '999.98' }, {}, false],
    ['amount differs within the tolerance', { amount: '999.99' }, {}, true],
  ])('%s', (_name, localPatch, fetchedPatch, writes) => {
    const order = local(localPatch);
    const f = { ...fetched, ...fetchedPatch };
    const recon = compareOrder(toLocalOrder(order), { kind: 'found', order: f }, policy, NOW);
    const plan = planOrderUpdate(order, f, NOW, policy);
    expect(recon.update !== null, 'reconcile writes').toBe(writes);
    expect(plan.apply !== null, `webhook writes (${plan.note})`).toBe(writes);
    // A refusal names the same identity codes reconcile reports.
    const identity = recon.codes.filter((c) => ['CURRENCY', 'METHOD', 'MERCHANT_REF', 'AMOUNT'].includes(c));
    expect(identity.length > 0).toBe(!writes);
    for (const code of identity) expect(plan.note).toContain(code);
  });
});

describe('webhook and reconcile on the same order (sandbox)', () => {
  let world: World;
  let orders: SeededOrder[];

  beforeAll(async () => {
    world = await createWorld('webhook_identity');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 3, payouts: 0, seed: 11 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  it('local method CARD, provider TRANSFER: a confirmed Success notification leaves the order pending, as reconcile --ref does, both naming METHOD', async () => {
    const { knex } = world.t.db;
    const o = orders[0];
    await knex('payment_orders').where({ transaction_ref: o.transactionRef }).update({ method: 'CARD' });
    const p = (await world.control.getOrder(o.transactionRef))!;
    expect(p.method).not.toBe('CARD');
    const stored = await storeWebhookEvent(knex, {
      direction: 'payment',
      dedupeKey: `identity-${o.transactionRef}`,
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
    expect(await confirmWebhookEvent({ db: world.t.db, client: world.client, policy: policyFromConfig(world.config) }, stored.id)).toBe(
      'confirmed',
    );
    const event = await knex('webhook_events').where({ id: stored.id }).first();
    expect(event.confirmation_note).toMatch(/METHOD/);
    const afterWebhook = await knex('payment_orders').where({ transaction_ref: o.transactionRef }).first();
    expect({ status: afterWebhook.status, category: afterWebhook.status_category, finalized: afterWebhook.finalized_at }).toEqual({
      status: 'Initiated',
      category: 'pending',
      finalized: null,
    });

    const now = new Date();
    const outcome = await reconcileWorld(world, { request: { ref: o.transactionRef }, clock: () => now, concurrency: 2, batchSize: 10 });
    const [item] = await knex('recon_items').where({ run_id: outcome.runs.at(-1)!.runId });
    expect(item.codes).toEqual(['METHOD']);
    const afterReconcile = await knex('payment_orders').where({ transaction_ref: o.transactionRef }).first();
    expect(afterReconcile.status_category).toBe('pending');
  });
});
