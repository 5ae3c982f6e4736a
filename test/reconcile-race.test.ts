/**
 * Issue 14, item 3: every order write is conditional on the state it was computed from. Reconcile
 * computes an order from `Processing`; a confirmed webhook makes it `Success` before the batch
 * commits. The batch must not move it back: the lost race becomes a re-check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import type { OrderFetcher } from '../src/reconcile/fetch-answer.ts';
import { storeWebhookEvent } from '../src/db/webhook-events.ts';
import { confirmWebhookEvent } from '../src/webhook/confirm.ts';
import { silentLogger } from '../src/log/logger.ts';

describe('a confirmed webhook racing a reconcile batch', () => {
  let world: World;
  let orders: SeededOrder[];

  beforeAll(async () => {
    world = await createWorld('reconcile_race');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 8, payouts: 0, seed: 3 });
    await world.control.advanceClock(2_000); // final at the provider
  });
  afterAll(() => world?.close());

  it('the batch computed from Processing does not overwrite the Success the webhook wrote meanwhile; the order is re-checked', async () => {
    const { knex } = world.t.db;
    const target = orders[2];
    await world.control.setOrder(target.transactionRef, { status: 'Processing' });
    let raced = false;

    // The fetch answers Processing; before reconcile gets the answer (so before its batch commits),
    // the provider completes the order and its notification is confirmed and applied.
    const fetcher: OrderFetcher = {
      fetchPayout: (ref) => world.client.fetchPayout(ref),
      fetchPayment: async (ref) => {
        const answer = await world.client.fetchPayment(ref);
        if (ref === target.transactionRef && !raced) {
          raced = true;
          await world.control.setOrder(ref, { status: 'Success' });
          const p = (await world.control.getOrder(ref))!;
          const stored = await storeWebhookEvent(knex, {
            direction: 'payment',
            dedupeKey: `race-${ref}`,
            transactionRef: ref,
            merchantRef: p.merchantRef,
            currency: p.currency,
            method: p.method,
            amount: p.amount,
            paidAmount: p.paidAmount ?? null,
            fee: p.fee,
            status: 'Success',
            rawBody: '{}',
            headers: {},
            receivedAt: new Date(),
          });
          expect(await confirmWebhookEvent({ db: world.t.db, client: world.client }, stored.id)).toBe('confirmed');
          const confirmed = await knex('payment_orders').where({ transaction_ref: ref }).first();
          expect(confirmed.status).toBe('Success'); // the webhook won the race
        }
        return answer;
      },
    };

    const now = new Date();
    const outcome = await reconcile(
      {
        db: world.t.db,
        fetcher,
        policy: policyFromConfig(world.config),
        clock: () => new Date(),
        logger: silentLogger,
        concurrency: 4,
        batchSize: 100,
      },
      { selection: buildSelection({ date: now.toISOString().slice(0, 10) }, { now, zone: 'UTC', lookbackDays: 30 }), dryRun: false },
    );
    expect(raced).toBe(true);
    const summary = outcome.runs.at(-1)!;
    expect(summary.status).toBe('completed');
    expect(summary.checked).toBe(orders.length);

    const row = await knex('payment_orders').where({ transaction_ref: target.transactionRef }).first();
    expect({ status: row.status, category: row.status_category }).toEqual({ status: 'Success', category: 'success' });
    expect(row.finalized_at).toBeInstanceOf(Date);
    expect(row.next_check_at).toBeNull();

    // The lost race was checked again against the order as it now is: final and consistent.
    const items = await knex('recon_items').where({ run_id: summary.runId }).select('*');
    expect(items).toHaveLength(orders.length);
    const item = items.find((i: { transaction_ref: string }) => i.transaction_ref === target.transactionRef);
    expect(item).toMatchObject({ local_status: 'Success', provider_status: 'Success', verdict: 'matched' });
    for (const o of orders.filter((x) => x !== target)) {
      expect(items.find((i: { transaction_ref: string }) => i.transaction_ref === o.transactionRef).verdict).toBe('resolved');
    }
  });
});
