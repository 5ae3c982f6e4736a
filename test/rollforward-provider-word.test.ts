// Issue 43: the provider's word moves the wallet. Orders the merchant recorded already final, disagreeing
// with the provider: Success the provider keeps Pending (never checked before the snapshot), Success the
// provider failed, Failed the provider settled. Each stays a STATUS finding and case; none is drift, and the
// day's journal posts what the provider moved: wallet lines equal closing − opening, no suspense line.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { availableEngines } from './helpers/db.ts';
import { silentLogger } from '../src/log/logger.ts';
import { insertOrders } from '../src/db/orders.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { snapshotPolicyFromConfig } from '../src/snapshot/policy.ts';
import { takeSnapshots } from '../src/snapshot/take-snapshots.ts';
import { openOrderChecker } from '../src/snapshot/open-orders.ts';
import { dayRollForward, type SnapshotRollForward } from '../src/snapshot/rollforward.ts';
import { dayJournals } from '../src/report/journal-day.ts';
import { roleTotal } from '../src/recon/journal.ts';
import { Decimal } from '../src/money/decimal.ts';
import { DEMO_METHODS } from '../src/demo/seed-merchant.ts';

const T1 = new Date('2026-03-10T08:00:00.000Z');
const at = (minutes: number) => new Date(T1.getTime() + minutes * 60_000);

/** The job's clock: from `start`, one millisecond later at each reading, so every moment is distinct. */
function ticking(start: Date): () => Date {
  let n = 0;
  return () => new Date(start.getTime() + n++);
}

describe.each(availableEngines)('the provider’s word moves the wallet (%s)', (engine) => {
  let world: World;
  beforeAll(async () => {
    world = await createWorld(`provider_word_${engine}`, { db: { engine }, client: { maxRetries: 0 } });
  });
  afterAll(() => world?.close());

  const snapshot = (when: Date) => {
    const clock = ticking(when);
    const deps = {
      db: world.t.db,
      fetcher: world.client,
      policy: policyFromConfig(world.t.config),
      clock,
      logger: silentLogger,
      concurrency: 2,
      batchSize: 50,
    };
    return takeSnapshots(
      {
        db: world.t.db,
        client: world.client,
        policy: snapshotPolicyFromConfig(world.t.config),
        clock,
        logger: silentLogger,
        checkOpenOrders: openOrderChecker(deps, { lookbackDays: 30 }),
      },
      ['NGN'],
    );
  };

  const pay = async (amount: string) =>
    world.client.initiatePayment({
      merchantRef: randomUUID(),
      currency: 'NGN',
      method: DEMO_METHODS.payment.NGN,
      amount,
      name: 'Ada Obi',
      phone: '+2348012345678',
      email: 'ada@example.com',
      redirectUrl: 'https://shop.example.com/done',
    });

  type Kind = { name: string; merchant: 'Success' | 'Failed'; provider: 'Pending' | 'Failed' | 'Success'; moved: boolean };
  const KINDS: Kind[] = [
    {
      name: 'merchant Success, provider Pending, never checked before the snapshot',
      merchant: 'Success',
      provider: 'Pending',
      moved: false,
    },
    { name: 'merchant Success, provider Failed', merchant: 'Success', provider: 'Failed', moved: false },
    { name: 'merchant Failed, provider Success', merchant: 'Failed', provider: 'Success', moved: true },
  ];

  it.each(KINDS.map((k, i) => [k.name, k, i] as const))(
    '%s: no drift, its STATUS finding and case, the journal posts what the provider moved',
    async (_, kind, i) => {
      const { control, t } = world;
      const base = i * 24 * 60;
      expect((await snapshot(at(base))).drift).toEqual([]);

      const initiated = await pay('4000.00');
      // Pinned at the provider (no lifecycle, no balance movement): kept Pending, or failed. Else it settles.
      if (kind.provider === 'Pending') await control.setOrder(initiated.transactionRef, { status: 'Pending' });
      if (kind.provider === 'Failed') await control.setOrder(initiated.transactionRef, { status: 'Failed', paidAmount: '0' });
      await control.advanceClock(5_000);
      const provider = (await control.getOrder(initiated.transactionRef))!;
      expect(provider.status).toBe(kind.provider);

      // The merchant records it already final in its books (finalized at creation, as an import does).
      const success = kind.merchant === 'Success';
      const [row] = await insertOrders(t.db.knex, 'payment', [
        {
          merchantRef: initiated.merchantRef,
          transactionRef: initiated.transactionRef,
          currency: 'NGN',
          method: DEMO_METHODS.payment.NGN,
          amount: '4000.00',
          paidAmount: success ? '4000.00' : null,
          fee: success ? '15.00' : null,
          status: kind.merchant,
          statusCategory: success ? 'success' : 'failed',
          createdAt: at(base + 1),
          finalizedAt: at(base + 1),
        },
      ]);

      // No reconcile run between: only the snapshot's check before its reading asks the provider.
      const s = await snapshot(at(base + 10));
      expect(s.drift).toEqual([]);
      const net = kind.moved ? new Decimal(provider.paidAmount).minus(provider.fee).toFixed() : '0';
      const rf = s.currencies[0].rollForward!;
      expect(rf).toMatchObject({ drift: '0', withinTolerance: true, timingItems: [] });
      expect(new Decimal(rf.explainedMovement).toFixed()).toBe(net);
      expect(rf.sums!.payments.count).toBe(kind.moved ? 1 : 0);

      const items = await t.db.knex('recon_items').where({ direction: 'payment', order_id: row.id }).select('verdict', 'codes');
      // Checked before the reading (and, the one the provider keeps Pending, again after it, as an open order).
      expect(items.length).toBeGreaterThanOrEqual(1);
      for (const item of items) expect(item).toMatchObject({ verdict: 'mismatch', codes: expect.arrayContaining(['STATUS']) });
      expect(await t.db.knex('cases').where({ direction: 'payment', order_id: row.id, code: 'STATUS' }).select('state')).toEqual([
        { state: 'open' },
      ]);
      expect(Number((await t.db.knex('cases').where({ code: 'BALANCE_DRIFT' }).count('* as n'))[0].n)).toBe(0);
      // The merchant's books are not rewritten; the provider's category is kept beside them.
      expect(await t.db.knex('payment_orders').where({ id: row.id }).first('status_category', 'provider_category')).toEqual({
        status_category: kind.merchant.toLowerCase(),
        provider_category: kind.provider.toLowerCase(),
      });

      // An hour on, the provider unchanged: still no drift; an order it keeps Pending is still asked about.
      await control.advanceClock(3_600_000);
      expect((await snapshot(at(base + 70))).drift).toEqual([]);
      const next = await t.db.knex('payment_orders').where({ id: row.id }).first('next_check_at');
      if (kind.provider === 'Pending') expect(next.next_check_at).not.toBeNull();

      // The journal of the two windows: wallet lines equal closing − opening, which is what the provider moved.
      const day = await dayRollForward(t.db.knex, { currency: 'NGN', from: at(base + 0.001), to: at(base + 71), tolerance: '0' });
      const [journal] = dayJournals({
        date: '2026-03-10',
        currencies: ['NGN'],
        rollForwards: new Map<string, SnapshotRollForward | null>([['NGN', day]]),
        late: [],
        feeDifferences: null,
        rates: [],
      });
      expect(day.drift).toBe('0');
      const wallet = new Decimal(roleTotal(journal.entries, 'wallet')).toFixed();
      expect(wallet).toBe(new Decimal(day.closingTotal!).minus(day.openingTotal!).toFixed());
      expect(wallet).toBe(net);
      expect(journal.entries.flatMap((e) => e.lines).filter((l) => l.role === 'suspense')).toEqual([]);
    },
  );
});
