/**
 * The provider budget in real runs, over HTTP against the sandbox and a real database:
 * - a provider that throttles (the sandbox's rate-limit mode): the client backs off and the run completes
 *   with every order checked, none turned into an error by the 429s;
 * - the due sweep does not fetch an order a verified notification and its confirming fetch made final,
 *   even when its last check is older than the final re-check period;
 * - each fetch carries its priority: explicit reruns urgent, the sweep's open orders sweep, its final re-checks last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection, type Selection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { storeWebhookEvent } from '../src/db/webhook-events.ts';
import { confirmWebhookEvent } from '../src/webhook/confirm.ts';
import { silentLogger } from '../src/log/logger.ts';
import type { OrderFetcher } from '../src/reconcile/fetch-answer.ts';
import type { BudgetPriority } from '../src/provider/rate-limit.ts';
import { withJob } from '../src/runtime/with-job.ts';
import { requiresServer } from './helpers/db.ts';
import { loadConfig } from '../src/config/config.ts';

const DAY = 86_400_000;

const run = (world: World, selection: Selection, now: Date, fetcher: OrderFetcher = world.client) =>
  reconcile(
    {
      db: world.t.db,
      fetcher,
      policy: policyFromConfig(world.config),
      clock: () => now,
      logger: silentLogger,
      concurrency: 16,
      batchSize: 50,
    },
    { selection, dryRun: false },
  );

const due = (now: Date) => buildSelection({}, { now, zone: 'UTC', lookbackDays: 30, finalRecheckDays: 7 });

describe('a throttling provider (429 above R requests per second)', () => {
  let world: World;
  beforeAll(async () => {
    // No client-side limit, a generous retry base: only the provider's 429s slow this client down.
    world = await createWorld('budget_429', { client: { concurrency: 16, retryBaseMs: 50 } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 40, payouts: 20, seed: 18 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  it('slows down (fewer calls in flight, Retry-After honoured) and checks every order', async () => {
    await world.control.setRateLimit(20);
    const outcome = await run(world, due(new Date()), new Date());
    const stats = await world.control.stats();
    expect(outcome.status).toBe('completed');
    expect(outcome.runs[0].checked).toBe(60);
    expect(outcome.runs[0].counts['verdict:error'] ?? 0).toBe(0);
    expect(stats.rate.throttled).toBeGreaterThan(0);
    expect(world.client.throttle.throttled).toBe(stats.rate.throttled);
    expect(world.client.throttle.lowestLimit).toBeLessThan(16);
  });
});

describe('the due sweep and confirmed notifications', () => {
  let world: World;
  let orders: SeededOrder[];
  beforeAll(async () => {
    world = await createWorld('budget_skip');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 6, payouts: 0, seed: 19 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  it('does not fetch an order a confirmed notification made final since the last sweep', async () => {
    const [notified, oldCheck] = orders;
    // The second order's last check is older than the 7-day re-check period: its confirmation is what counts.
    await world.t.db
      .knex('payment_orders')
      .where({ transaction_ref: oldCheck.transactionRef })
      .update({ last_checked_at: new Date(Date.now() - 10 * DAY), check_count: 1 });
    for (const o of [notified, oldCheck]) {
      const stored = await storeWebhookEvent(world.t.db.knex, {
        direction: 'payment',
        dedupeKey: `k-${o.transactionRef}`,
        transactionRef: o.transactionRef,
        merchantRef: o.merchantRef,
        currency: o.currency,
        method: null,
        amount: null,
        paidAmount: null,
        fee: null,
        status: 'Success',
        rawBody: '{}',
        headers: {},
        receivedAt: new Date(),
      });
      expect(await confirmWebhookEvent({ db: world.t.db, client: world.client }, stored.id)).toBe('confirmed');
    }
    const before = (await world.control.stats()).requests;
    const now = new Date();
    const outcome = await run(world, due(now), now);
    const after = (await world.control.stats()).requests;
    expect(outcome.runs[0].checked).toBe(4);
    expect(after.paymentFetch - before.paymentFetch).toBe(4);
    const items = await world.t.db.knex('recon_items').where({ run_id: outcome.runs[0].runId }).pluck('transaction_ref');
    expect(items).not.toContain(notified.transactionRef);
    expect(items).not.toContain(oldCheck.transactionRef);
  });
});

describe('priorities of the fetches', () => {
  let world: World;
  let orders: SeededOrder[];
  beforeAll(async () => {
    world = await createWorld('budget_priority');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 3, payouts: 0, seed: 20 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  it('urgent for an explicit rerun, sweep for open orders, recheck for final ones', async () => {
    const seen: Array<[string, BudgetPriority | undefined]> = [];
    const spy: OrderFetcher = {
      fetchPayment: (ref, opts) => (seen.push([ref, opts?.priority]), world.client.fetchPayment(ref, opts)),
      fetchPayout: (ref, opts) => (seen.push([ref, opts?.priority]), world.client.fetchPayout(ref, opts)),
    };
    const now = new Date();
    await run(world, due(now), now, spy);
    expect(seen.map(([, p]) => p)).toEqual(['sweep', 'sweep', 'sweep']);

    seen.length = 0;
    await run(world, buildSelection({ ref: orders[0].merchantRef }, { now, zone: 'UTC', lookbackDays: 30 }), now, spy);
    expect(seen).toEqual([[orders[0].transactionRef, 'urgent']]);

    // Eight days on, the final orders are due for their periodic re-check: the lowest priority.
    seen.length = 0;
    const later = new Date(now.getTime() + 8 * DAY);
    await run(world, due(later), later, spy);
    expect(seen.map(([, p]) => p)).toEqual(['recheck', 'recheck', 'recheck']);
  });
});

describe('every job shares the budget through the database', () => {
  let world: World;
  let orders: SeededOrder[];
  beforeAll(async () => {
    world = await createWorld('budget_shared');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 2, payouts: 0, seed: 21 });
  });
  afterAll(() => world?.close());

  it.skipIf(requiresServer('the provider_budget row on Postgres'))(
    'a job with PROVIDER_RATE_LIMIT reserves its slots in provider_budget on Postgres',
    async () => {
      const config = loadConfig({ ...world.env, PROVIDER_RATE_LIMIT: '50' });
      await withJob('budget-test', { config, logger: silentLogger, db: world.t.db }, async (deps) => {
        const client = await deps.provider();
        await client.fetchPayment(orders[0].transactionRef, { priority: 'urgent' });
      });
      const rows = await world.t.db.knex('provider_budget').select('account', 'next_free_ms');
      expect(rows).toHaveLength(1);
      expect(rows[0].account).toBe(config.PROVIDER_MERCHANT_ID);
      expect(Number(rows[0].next_free_ms)).toBeGreaterThan(Date.now() - 60_000);
    },
  );
});
