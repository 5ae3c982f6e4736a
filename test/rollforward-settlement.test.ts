// Settlement roll-forward wired to the database: orders created at the sandbox, finalized by the
// reconcile runner, and balances moved by the sandbox, between snapshots taken by the snapshot job.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { CLEAN_LIFECYCLE, createWorld, type World } from './helpers/world.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import type { ProviderClient } from '../src/provider/client.ts';
import { silentLogger } from '../src/log/logger.ts';
import { insertOrders } from '../src/db/orders.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { snapshotPolicyFromConfig } from '../src/snapshot/policy.ts';
import { takeSnapshots } from '../src/snapshot/take-snapshots.ts';
import { dayRollForward } from '../src/snapshot/rollforward.ts';
import { openOrderChecker } from '../src/snapshot/open-orders.ts';
import { Decimal } from '../src/money/decimal.ts';

const SANDBOX_NOW = Date.now();
const T1 = new Date('2026-03-10T08:00:00.000Z');
const minutes = (m: number) => new Date(T1.getTime() + m * 60_000);
const DAY = { from: new Date('2026-03-10T00:00:00.000Z'), to: new Date('2026-03-11T00:00:00.000Z') };

let world: World;
let t: TestDatabase;
let control: SandboxControl;
let client: ProviderClient;

beforeAll(async () => {
  // Every order succeeds in full one second after initiate, and only when the test moves the clock.
  world = await createWorld('rollforward', { sandbox: { now: () => SANDBOX_NOW, lifecycle: CLEAN_LIFECYCLE }, client: { maxRetries: 0 } });
  ({ t, control, client } = world);
});
afterAll(() => world?.close());
beforeEach(async () => {
  await control.reset();
  await t.db.knex.raw('TRUNCATE balance_snapshots, rate_snapshots, job_runs, payment_orders, payout_orders CASCADE');
});

const snapshot = (at: Date) =>
  takeSnapshots({ db: t.db, client, policy: snapshotPolicyFromConfig(t.config), clock: () => at, logger: silentLogger }, ['NGN', 'INR']);

/** Orders as the merchant's systems would: initiate at the provider, record locally as pending. */
async function placeOrders(createdAt: Date) {
  const pay = await client.initiatePayment({
    merchantRef: randomUUID(),
    currency: 'NGN',
    method: 'TRANSFER',
    amount: '25000.50',
    name: 'Ada Obi',
    phone: '+2348012345678',
    email: 'ada@example.com',
    redirectUrl: 'https://shop.example.com/done',
  });
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
  await insertOrders(t.db.knex, 'payment', [
    {
      merchantRef: pay.merchantRef,
      transactionRef: pay.transactionRef,
      currency: 'NGN',
      method: 'TRANSFER',
      amount: '25000.50',
      createdAt,
    },
  ]);
  await insertOrders(t.db.knex, 'payout', [
    {
      merchantRef: out.merchantRef,
      transactionRef: out.transactionRef,
      currency: 'NGN',
      method: 'BANK',
      amount: '10000.25',
      fee: out.fee,
      bankCode: '044',
      createdAt,
    },
  ]);
  return { payoutFee: out.fee };
}

/** The reconcile runner at `at`: it stamps finalized_at when it sees the orders final. */
async function reconcileAt(at: Date) {
  const outcome = await reconcile(
    { db: t.db, fetcher: client, policy: policyFromConfig(t.config), clock: () => at, logger: silentLogger, concurrency: 4, batchSize: 50 },
    { selection: buildSelection({}, { now: at, zone: 'UTC', lookbackDays: 30 }), dryRun: false },
  );
  expect(outcome.status).toBe('completed');
  return outcome;
}

describe('settlement roll-forward between snapshots', () => {
  it('orders finalized between two snapshots explain the balance change exactly: no drift', async () => {
    const s1 = await snapshot(minutes(0));
    const { payoutFee } = await placeOrders(minutes(1));
    await control.advanceClock(2000);
    const rec = await reconcileAt(minutes(5));
    expect(rec.runs[0].counts['verdict:resolved']).toBe(2);
    const s2 = await snapshot(minutes(10));

    expect(s1.drift).toEqual([]);
    expect(s2.status).toBe('completed');
    expect(s2.drift).toEqual([]);
    const ngn = s2.currencies.find((c) => c.currency === 'NGN')!.rollForward!;
    const payment = await t.db.knex('payment_orders').first();
    // paid - fee in, amount + fee out: the provider's own figures, as reconcile recorded them.
    const explained = new Decimal(payment.paid_amount).minus(payment.fee).minus(new Decimal('10000.25').plus(payoutFee));
    expect(explained.isZero()).toBe(false);
    expect(ngn).toMatchObject({ drift: '0', withinTolerance: true, finding: null, explainedMovement: explained.toFixed() });
    expect(new Decimal(ngn.closingTotal!).minus(ngn.openingTotal!).equals(explained)).toBe(true);
    expect(ngn.sums).toEqual({
      payments: { paidAmount: expect.any(String), fee: expect.any(String), count: 1 },
      payouts: { amount: '10000.25', fee: expect.any(String), count: 1 },
    });
    // Every pair checked is stored, within tolerance or not.
    const checks = await t.db.knex('balance_checks').where({ run_id: s2.runId }).orderBy('currency');
    expect(
      checks.map((c: { currency: string; drift: string; within_tolerance: boolean }) => [c.currency, c.drift, c.within_tolerance]),
    ).toEqual([
      ['INR', '0', true],
      ['NGN', '0', true],
    ]);
  });

  it('a balance moved by an amount no order explains is BALANCE_DRIFT of exactly that amount', async () => {
    await snapshot(minutes(0));
    await control.adjustBalance('NGN', '-1234.56');
    const s2 = await snapshot(minutes(10));

    expect(s2.status).toBe('completed');
    expect(s2.drift).toEqual([
      expect.objectContaining({
        currency: 'NGN',
        drift: '-1234.56',
        tolerance: '0',
        finding: expect.objectContaining({ code: 'BALANCE_DRIFT', note: expect.stringContaining('drift -1234.56') }),
        openingTakenAt: minutes(0),
        closingTakenAt: minutes(10),
      }),
    ]);
    const stored = await t.db.knex('balance_checks').where({ run_id: s2.runId, currency: 'NGN' }).first();
    expect(stored).toMatchObject({ drift: '-1234.56', within_tolerance: false, payments_count: 0, payouts_count: 0 });
    expect((await t.db.knex('job_runs').where({ id: s2.runId }).first()).counts['code:BALANCE_DRIFT']).toBe(1);
  });

  it('a drift within RECON_TOLERANCE is stored but is not a finding', async () => {
    const tolerant = await createTestDatabase('rollforward_tol', { env: { RECON_TOLERANCE: 'NGN=5' } });
    try {
      const take = (at: Date) =>
        takeSnapshots(
          { db: tolerant.db, client, policy: snapshotPolicyFromConfig(tolerant.config), clock: () => at, logger: silentLogger },
          ['NGN'],
        );
      await take(minutes(0));
      await control.adjustBalance('NGN', '4.99');
      const s2 = await take(minutes(10));
      expect(s2.drift).toEqual([]);
      expect(s2.currencies[0].rollForward).toMatchObject({ drift: '4.99', tolerance: '5', withinTolerance: true });
    } finally {
      await tolerant.drop();
    }
  });

  it("an order finalized outside the pair's window is not counted in it", async () => {
    await placeOrders(minutes(-30));
    await control.advanceClock(2000);
    // Seen final before the first snapshot: already inside the opening balance.
    await reconcileAt(minutes(-1));
    await snapshot(minutes(0));
    const s2 = await snapshot(minutes(10));
    expect(s2.drift).toEqual([]);
    expect(s2.currencies.find((c) => c.currency === 'NGN')!.rollForward!.sums).toMatchObject({
      payments: { count: 0 },
      payouts: { count: 0 },
    });
  });

  it('orders final between the open-order check and the balance reading are timing items: no drift in either window', async () => {
    await snapshot(minutes(0));
    await placeOrders(minutes(1));
    // A clock that moves a second per reading, so check, reading and re-check each get their own time.
    let tick = minutes(10).getTime();
    const clock = () => new Date((tick += 1000));
    const deps = {
      db: t.db,
      fetcher: client,
      policy: policyFromConfig(t.config),
      clock,
      logger: silentLogger,
      concurrency: 4,
      batchSize: 50,
    };
    // The provider settles both orders after the check that saw them open, before the balance answer.
    const settling = {
      ...client,
      balance: async (c: 'NGN' | 'INR') => (c === 'NGN' && (await control.advanceClock(2000)), client.balance(c)),
    };
    const s2 = await takeSnapshots(
      {
        db: t.db,
        client: settling as ProviderClient,
        policy: snapshotPolicyFromConfig(t.config),
        clock,
        logger: silentLogger,
        checkOpenOrders: openOrderChecker(deps, { lookbackDays: 30 }),
      },
      ['NGN', 'INR'],
    );
    const ngn = s2.currencies.find((c) => c.currency === 'NGN')!.rollForward!;
    expect(ngn).toMatchObject({ explainedMovement: '0', drift: '0', withinTolerance: true, finding: null });
    expect(ngn.timingItems.map((i) => [i.direction, i.straddles, i.assignedIn])).toEqual([
      ['payment', 'closing', true],
      ['payout', 'closing', true],
    ]);
    expect(new Decimal(ngn.closingTotal!).minus(ngn.openingTotal!).toFixed()).toBe(new Decimal(ngn.timingMovement).toFixed());
    const stored = await t.db.knex('balance_checks').where({ run_id: s2.runId, currency: 'NGN' }).first();
    expect(stored.timing_items).toHaveLength(2);
    expect(new Decimal(stored.timing_movement).equals(ngn.timingMovement)).toBe(true);

    // The next window sees the same two orders straddling its opening: on the other side, no reversal.
    const s3 = await snapshot(minutes(30));
    const next = s3.currencies.find((c) => c.currency === 'NGN')!.rollForward!;
    expect(next).toMatchObject({ drift: '0', withinTolerance: true, timingMovement: '0' });
    expect(next.timingItems.map((i) => [i.straddles, i.assignedIn])).toEqual([
      ['opening', false],
      ['opening', false],
    ]);
    expect(s2.drift).toEqual([]);
    expect(s3.drift).toEqual([]);
  });

  it('dayRollForward checks the business day from its first to its last snapshot', async () => {
    await snapshot(minutes(0));
    await placeOrders(minutes(1));
    await control.advanceClock(2000);
    await reconcileAt(minutes(5));
    await snapshot(minutes(10));
    await control.adjustBalance('NGN', '77.70');
    await snapshot(minutes(20));
    // A snapshot of the next day is outside the window.
    await control.adjustBalance('NGN', '1000');
    await snapshot(new Date('2026-03-11T00:00:00.000Z'));

    const day = await dayRollForward(t.db.knex, { currency: 'NGN', ...DAY, tolerance: '0' });
    expect(day.opening?.takenAt).toEqual(minutes(0));
    expect(day.closing?.takenAt).toEqual(minutes(20));
    expect(day).toMatchObject({ drift: '77.7', withinTolerance: false, finding: expect.objectContaining({ code: 'BALANCE_DRIFT' }) });
    expect(day.sums).toMatchObject({ payments: { count: 1 }, payouts: { count: 1 } });

    const inr = await dayRollForward(t.db.knex, { currency: 'INR', ...DAY, tolerance: '0' });
    expect(inr).toMatchObject({ drift: '0', withinTolerance: true, finding: null });
  });

  it("days tile: a day opens on the previous day's last snapshot, so the night between them belongs to the next day", async () => {
    // Old window (first to last snapshot within the day) left 22:00 → 08:00 to no day: the 500 moved there was never checked.
    const PREV = { from: new Date('2026-03-09T00:00:00.000Z'), to: DAY.from };
    await snapshot(new Date('2026-03-09T22:00:00.000Z'));
    await control.adjustBalance('NGN', '500');
    await snapshot(minutes(0));
    await snapshot(minutes(20));

    const prev = await dayRollForward(t.db.knex, { currency: 'NGN', ...PREV, tolerance: '0' });
    const day = await dayRollForward(t.db.knex, { currency: 'NGN', ...DAY, tolerance: '0' });
    expect(prev.closing).toBeNull(); // one snapshot in the previous day, nothing before it: not checked
    expect(day.opening?.takenAt).toEqual(new Date('2026-03-09T22:00:00.000Z'));
    expect(day.closing?.takenAt).toEqual(minutes(20));
    expect(day).toMatchObject({ drift: '500', withinTolerance: false });
  });

  it('dayRollForward with a single snapshot says it could not check', async () => {
    await snapshot(minutes(0));
    const day = await dayRollForward(t.db.knex, { currency: 'NGN', ...DAY, tolerance: '0' });
    expect(day).toMatchObject({
      drift: null,
      withinTolerance: null,
      finding: null,
      closing: null,
      note: expect.stringContaining('no closing balance snapshot'),
    });
    const empty = await dayRollForward(t.db.knex, {
      currency: 'NGN',
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-02T00:00:00Z'),
      tolerance: '0',
    });
    expect(empty).toMatchObject({ opening: null, closing: null, drift: null, note: expect.stringContaining('no opening and closing') });
  });
});
