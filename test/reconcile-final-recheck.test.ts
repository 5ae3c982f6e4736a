// RECON_FINAL_RECHECK_DAYS: the due sweep re-checks final orders of the lookback window at a low
// rate, so a provider that reverses an old success or corrects a fee later is seen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';

const DAY = 86_400_000;

describe('re-check of final orders in the due sweep', () => {
  let world: World;
  let orders: SeededOrder[];
  const start = Date.now();

  /** The due sweep as the 15-minute job runs it, `days` after the orders were created. */
  const sweepAt = (days: number, finalRecheckDays: number) => {
    const now = new Date(start + days * DAY);
    return reconcileWorld(world, { clock: () => now, concurrency: 4, batchSize: 10, finalRecheckDays });
  };

  beforeAll(async () => {
    world = await createWorld('final_recheck');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 12, payouts: 6, seed: 21 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());

  it('re-checks final orders only once their last check is older than the rate, and sees a reversal and a fee correction', async () => {
    const first = await sweepAt(0, 7);
    expect(first.runs[0]).toMatchObject({ status: 'completed', selected: 18 });
    expect(first.runs[0].counts['verdict:resolved']).toBe(18);

    // Within the re-check interval nothing final is selected.
    expect((await sweepAt(6, 7)).runs[0]).toMatchObject({ selected: 0 });

    // Meanwhile the provider reversed one success and corrected another payment's fee.
    const [reversed, corrected] = orders.filter((o) => o.direction === 'payment');
    await world.control.setOrder(reversed.transactionRef, { status: 'Failed' });
    const feeBefore = (await world.control.getOrder(corrected.transactionRef))!.fee;
    await world.control.setOrder(corrected.transactionRef, { fee: (Number(feeBefore) + 1).toFixed(2) });

    const later = await sweepAt(8, 7);
    expect(later.runs[0]).toMatchObject({ status: 'completed', selected: 18, checked: 18 });
    const items = await world.t.db.knex('recon_items').where({ run_id: later.runs[0].runId }).select('transaction_ref', 'verdict', 'codes');
    const byRef = new Map(items.map((i: { transaction_ref: string; verdict: string; codes: string[] }) => [i.transaction_ref, i]));
    // The reversal still reports what was paid and charged: money on a failed payment is a finding of its own.
    expect(byRef.get(reversed.transactionRef)).toMatchObject({ verdict: 'mismatch', codes: ['FEE', 'PAID_AMOUNT', 'STATUS'] });
    expect(byRef.get(corrected.transactionRef)).toMatchObject({ verdict: 'mismatch', codes: expect.arrayContaining(['FEE']) });
    expect(items.filter((i: { verdict: string }) => i.verdict === 'matched')).toHaveLength(16);

    // RECON_FINAL_RECHECK_DAYS=0: final orders are never re-checked by the sweep.
    expect((await sweepAt(20, 0)).runs[0]).toMatchObject({ selected: 0 });
  });
});
