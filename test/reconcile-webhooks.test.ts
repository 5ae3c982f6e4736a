import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { storeWebhookEvent, settleEvent } from '../src/db/webhook-events.ts';
import { silentLogger } from '../src/log/logger.ts';

describe('webhook findings in the reconciliation', () => {
  let world: World;
  let orders: SeededOrder[];
  const HOUR = 3_600_000;
  // The orders' business day is fixed when they are seeded: a rerun an hour later is still of that day,
  // even when the hour crosses midnight (it failed at 23:00 UTC when the day came from the run's clock).
  let day: string;

  beforeAll(async () => {
    world = await createWorld('recon_webhooks');
    const seededAt = new Date();
    day = seededAt.toISOString().slice(0, 10);
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 6, payouts: 0, seed: 5, createdAt: () => seededAt });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  const run = (now: Date, expect: boolean) =>
    reconcile(
      {
        db: world.t.db,
        fetcher: world.client,
        policy: policyFromConfig(world.config),
        clock: () => now,
        logger: silentLogger,
        concurrency: 4,
        batchSize: 100,
        webhooks: { expect, marginMs: 5 * 60_000 },
      },
      { selection: buildSelection({ date: day }, { now, zone: 'UTC', lookbackDays: 30 }), dryRun: false },
    );

  const codesOf = async (runId: string) => {
    const rows = await world.t.db.knex('recon_items').where({ run_id: runId }).select('transaction_ref', 'codes', 'verdict');
    return new Map(rows.map((r: { transaction_ref: string; codes: string[]; verdict: string }) => [r.transaction_ref, r]));
  };

  it('finds WEBHOOK_MISSING only once the retry window and margin are over, and WEBHOOK_CONFLICT from a contradicted notification', async () => {
    const [notified, contradicted] = orders;
    const at = new Date();
    for (const [o, confirmation] of [
      [notified, 'confirmed'],
      [contradicted, 'conflict'],
    ] as const) {
      const stored = await storeWebhookEvent(world.t.db.knex, {
        direction: 'payment',
        dedupeKey: `k-${o.transactionRef}`,
        transactionRef: o.transactionRef,
        merchantRef: o.merchantRef,
        currency: o.currency,
        method: 'X',
        amount: '1',
        paidAmount: '1',
        fee: '0',
        status: 'Success',
        rawBody: '{}',
        headers: {},
        receivedAt: at,
      });
      await settleEvent(
        world.t.db.knex,
        String((stored as { id: string }).id),
        confirmation,
        confirmation === 'conflict' ? 'fetch says Failed' : null,
        at,
      );
    }

    // First check: orders become final now, so no notification can be missing yet.
    const first = await codesOf((await run(at, true)).runs[0].runId);
    expect(first.get(contradicted.transactionRef)!.codes).toEqual(['WEBHOOK_CONFLICT']);
    expect([...first.values()].some((i) => i.codes.includes('WEBHOOK_MISSING'))).toBe(false);

    // An hour later, a rerun of the day: the four never notified are missing; the notified one is not.
    const later = await codesOf((await run(new Date(at.getTime() + HOUR), true)).runs[0].runId);
    expect(later.get(notified.transactionRef)!.codes).toEqual([]);
    expect(later.get(contradicted.transactionRef)!.codes).toEqual(['WEBHOOK_CONFLICT']);
    const missing = orders.slice(2).map((o) => later.get(o.transactionRef)!);
    for (const item of missing) expect(item).toMatchObject({ codes: ['WEBHOOK_MISSING'], verdict: 'mismatch' });

    // A merchant who does not run the receiver is not told its notifications are missing.
    const optedOut = await codesOf((await run(new Date(at.getTime() + HOUR), false)).runs[0].runId);
    expect([...optedOut.values()].some((i) => i.codes.includes('WEBHOOK_MISSING'))).toBe(false);
  });
});
