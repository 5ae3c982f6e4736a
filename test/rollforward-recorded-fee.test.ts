// Over several days of the sandbox's clock, a fee the merchant recorded wrongly stays a FEE case, and the
// settlement roll-forward explains the balance with what the provider charged: no false drift (issue 25 item 1).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { silentLogger } from '../src/log/logger.ts';
import { insertOrders } from '../src/db/orders.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { snapshotPolicyFromConfig } from '../src/snapshot/policy.ts';
import { takeSnapshots } from '../src/snapshot/take-snapshots.ts';
import { Decimal } from '../src/money/decimal.ts';

const SANDBOX_NOW = Date.now();
const DAY = 86_400_000;
const T1 = new Date('2026-03-10T08:00:00.000Z');
const at = (days: number, minutes: number) => new Date(T1.getTime() + days * DAY + minutes * 60_000);

let world: World;

beforeAll(async () => {
  world = await createWorld('rollforward_fee', { sandbox: { now: () => SANDBOX_NOW }, client: { maxRetries: 0 } });
});
afterAll(() => world?.close());

const snapshot = (when: Date) =>
  takeSnapshots(
    { db: world.t.db, client: world.client, policy: snapshotPolicyFromConfig(world.t.config), clock: () => when, logger: silentLogger },
    ['NGN'],
  );

const reconcileAt = async (when: Date) => {
  const outcome = await reconcile(
    {
      db: world.t.db,
      fetcher: world.client,
      policy: policyFromConfig(world.t.config),
      clock: () => when,
      logger: silentLogger,
      concurrency: 2,
      batchSize: 50,
    },
    { selection: buildSelection({}, { now: when, zone: 'UTC', lookbackDays: 30, finalRecheckDays: 1 }), dryRun: false },
  );
  expect(outcome.status).toBe('completed');
  return outcome;
};

describe('a fee the merchant recorded differently from the provider', () => {
  it('stays an open FEE case for days while the roll-forward shows no drift', async () => {
    const { client, control, t } = world;
    await snapshot(at(0, 0));
    const out = await client.initiatePayout({
      merchantRef: randomUUID(),
      currency: 'NGN',
      method: 'BANK',
      bankCode: '044',
      amount: '10000.25',
      name: 'Chidi Okeke',
      account: '0123456789',
      phone: '+2348098765432',
      email: 'chidi@example.com',
    });
    // The merchant's books say one minor unit more than the provider charged (and debited from the balance).
    const recorded = new Decimal(out.fee).plus('0.01').toFixed(2);
    const [order] = await insertOrders(t.db.knex, 'payout', [
      {
        merchantRef: out.merchantRef,
        transactionRef: out.transactionRef,
        currency: 'NGN',
        method: 'BANK',
        amount: '10000.25',
        bankCode: '044',
        fee: recorded,
        createdAt: at(0, 1),
      },
    ]);
    await control.advanceClock(2_000);

    const checks = [await reconcileAt(at(0, 5))];
    const day0 = await snapshot(at(0, 10));
    expect(day0.drift).toEqual([]);
    expect(day0.currencies[0].rollForward).toMatchObject({
      drift: '0',
      sums: { payouts: { amount: '10000.25', fee: new Decimal(out.fee).toFixed(), count: 1 } },
    });

    // Days later at the provider too: the low-rate re-check of final orders asks again each day.
    for (const day of [2, 4]) {
      await control.advanceClock(2 * DAY);
      checks.push(await reconcileAt(at(day, 5)));
      const s = await snapshot(at(day, 10));
      expect(s.drift, `day ${day}`).toEqual([]);
    }
    const items = await t.db
      .knex('recon_items')
      .where({ direction: 'payout', order_id: order.id })
      .orderBy('checked_at')
      .select('verdict', 'codes');
    expect(items).toEqual(checks.map(() => ({ verdict: 'mismatch', codes: ['FEE'] })));
    expect(await t.db.knex('cases').where({ direction: 'payout', order_id: order.id }).select('code', 'state', 'seen_count')).toEqual([
      { code: 'FEE', state: 'open', seen_count: 3 },
    ]);
    const row = await t.db.knex('payout_orders').where({ id: order.id }).first();
    expect(row).toMatchObject({ fee: recorded, status_category: 'success' });
    // Every window between two snapshots stored, each explained to the cent.
    const stored = await t.db.knex('balance_checks').where({ currency: 'NGN' }).select('drift', 'within_tolerance');
    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect(stored.every((c: { drift: string; within_tolerance: boolean }) => c.drift === '0' && c.within_tolerance)).toBe(true);
  });
});
