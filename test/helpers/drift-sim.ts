/**
 * The settlement roll-forward under a simulated 48 hours of the sandbox (one seed per call): the
 * sandbox clock moves, orders are initiated at random times and finalize whenever their lifecycle
 * says, the reconcile sweep runs every 15 minutes and the snapshot job every hour (each a few
 * minutes late at random, sometimes both at once), and the provider clock also jumps forward at
 * random moments between provider calls, so orders finalize between a snapshot's open-order check,
 * its balance reading and its re-check. One balance adjustment no order explains is planted at a
 * random time. Real Postgres (a throw-away database) and the sandbox over real HTTP. With `movements`,
 * that many top-ups and withdrawals are recorded (and approved) at random moments, each landing in the
 * sandbox's balance up to two minutes after its recorded moment (issue 38): they must explain
 * themselves, never drift.
 *
 * Issue 43: some orders the merchant records later, in batches (every 40 minutes), already final in its
 * books (finalized at creation), before or after the snapshots around their finality at the provider:
 * agreeing with the provider, or not (Success the provider keeps Pending, Success the provider fails,
 * Failed the provider settles). The job's clock is the sandbox's, moving across the two days.
 */
import { randomUUID } from 'node:crypto';
import { createTestDatabase } from './db.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { startSandbox } from '../../src/sandbox/server.ts';
import { SandboxControl } from '../../src/sandbox/control-client.ts';
import { createProviderClient } from '../../src/provider/from-config.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { rng, type Rng } from '../../src/sandbox/prng.ts';
import { insertOrders, type NewOrder } from '../../src/db/orders.ts';
import { reconcile, type ReconcileDeps } from '../../src/reconcile/reconcile.ts';
import { buildSelection } from '../../src/reconcile/selection.ts';
import { policyFromConfig } from '../../src/reconcile/policy-from-config.ts';
import { snapshotPolicyFromConfig } from '../../src/snapshot/policy.ts';
import { takeSnapshots } from '../../src/snapshot/take-snapshots.ts';
import { openOrderChecker } from '../../src/snapshot/open-orders.ts';
import { DEMO_METHODS } from '../../src/demo/seed-merchant.ts';
import { Decimal, CURRENCIES, type Currency } from '../../src/money/decimal.ts';
import type { Direction } from '../../src/domain/types.ts';
import { approveMovement, insertMovements } from '../../src/db/movements.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

export interface SimOptions {
  seed: number;
  hours?: number;
  orders?: number;
  /** Recorded, approved top-ups and withdrawals (default none). */
  movements?: number;
  /** Called on the simulation's database before it is dropped (the journal test reads its days). */
  inspect?: (knex: import('knex').Knex, db: import('../../src/db/connect.ts').Db) => Promise<void>;
  /**
   * Also plant a late change: at hour 30 the provider raises a settled payout's fee by 1.00 (the
   * balance falls by it), and an hour later finance reruns the payout's day (reconcile --date), whose
   * check sees the new fee. Off by default: the roll-forward counts that window's fall as drift.
   */
  lateFeeCorrection?: boolean;
}

export interface SimResult {
  seed: number;
  hours: number;
  orders: number;
  /** balance_checks rows: one per currency per pair of consecutive snapshots. */
  windows: number;
  timingItems: number;
  /** Orders per kind (issue 43): live, and the merchant's batch-recorded final ones. */
  kinds: Record<OrderKind, number>;
  /** Windows first judged beyond tolerance and explained when judged again (an order recorded, or answered for, later). */
  rejudged: number;
  /** Windows whose latest judgement is beyond tolerance, other than the planted one. */
  falseDrifts: Array<{ currency: string; drift: string; closingAt: Date }>;
  planted: { currency: Currency; delta: string; at: Date };
  /** Exactly one window of the planted currency beyond tolerance, the one the adjustment fell in, drifting by exactly its size. */
  plantedFound: boolean;
  plantedWindows: Array<{ drift: string; openingAt: Date; closingAt: Date }>;
  /** Movements recorded, and how many times the roll-forwards counted them (inside a window, or a timing item taken in). */
  movements: number;
  movementsCounted: number;
}

type Movement = { reference: string; currency: Currency; delta: string };
type Event =
  | { at: number; kind: 'order' | 'sweep' | 'snapshot' | 'both' | 'plant' | 'batch' | 'feefix' | 'rerun' }
  | { at: number; kind: 'record' | 'land'; movement: Movement };

/**
 * How the merchant records an order: `live` at initiate, open (the flow before issue 43); the others later
 * in a batch, already final in its books: `agree` as the provider ends it, `kept-pending` Success while the
 * provider keeps it Pending, `provider-fails` Success the provider fails, `provider-settles` Failed the
 * provider settles.
 */
export const ORDER_KINDS = ['live', 'agree', 'kept-pending', 'provider-fails', 'provider-settles'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** An order initiated at the provider and not yet in the merchant's books. */
interface Unrecorded {
  direction: Direction;
  kind: OrderKind;
  recordAfter: number;
  order: NewOrder;
}

/** A size from 0.01 up: log-uniform over 0.01 .. 100,000 with a random sign, two decimals. */
function plantedDelta(r: Rng): string {
  const size = new Decimal(10).pow(r() * 7 - 2).toDecimalPlaces(2);
  const d = size.lt('0.01') ? new Decimal('0.01') : size;
  return (r() < 0.5 ? d.neg() : d).toFixed(2);
}

export async function simulateDrift(opts: SimOptions): Promise<SimResult> {
  const hours = opts.hours ?? 48;
  const orderCount = opts.orders ?? 40;
  const r = rng(opts.seed);
  const t = await createTestDatabase(`drift_sim_${opts.seed}`);
  // A throw-away database: commits need not wait for the disk (hundreds of small runs per seed).
  const name = (await t.db.knex.raw('SELECT current_database() AS n')).rows[0].n as string;
  await t.db.knex.raw(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  await t.db.close();
  const db = await openDatabase(t.config, { applicationName: name });
  const sandbox = await startSandbox({
    seed: opts.seed,
    lifecycle: {
      paymentDelayMs: { min: 30_000, max: 3 * HOUR },
      payoutDelayMs: { min: 5 * MIN, max: 8 * HOUR },
      paymentFailedShare: 0.1,
      paymentPartialShare: 0.05,
      paymentStuckShare: 0.03,
      payoutFailedShare: 0.08,
      payoutStuckShare: 0.03,
      utrMissingShare: 0,
    },
  });
  const control = new SandboxControl(sandbox.url);
  const config = loadConfig({ DATABASE_URL: t.url ?? '', PGLITE_DIR: t.config.PGLITE_DIR, PROVIDER_BASE_URL: sandbox.url });
  const client = await createProviderClient(config, { logger: silentLogger, retryBaseMs: 5, maxRetries: 2 });
  const now = () => new Date(sandbox.state.now());
  // The provider's clock sometimes jumps between two calls: an order may finalize at any moment.
  const jitter = async () => {
    if (r() < 0.15) await control.advanceClock(Math.floor(r() * 3 * MIN));
  };
  const fetcher = {
    fetchPayment: async (ref: string) => (await jitter(), client.fetchPayment(ref)),
    fetchPayout: async (ref: string) => (await jitter(), client.fetchPayout(ref)),
  };
  const snapshotClient = {
    balance: async (c: Currency) => (await jitter(), client.balance(c)),
    usdtRate: (c: Currency) => client.usdtRate(c),
  };
  const reconcileDeps: ReconcileDeps = {
    db,
    fetcher,
    policy: policyFromConfig(config),
    clock: now,
    logger: silentLogger,
    concurrency: 4,
    batchSize: 50,
    lockPollMs: 20,
  };
  const banks = new Map<Currency, string[]>();
  for (const c of ['IDR', 'NGN'] as const)
    banks.set(
      c,
      (await client.bankCodes(c)).map((b) => b.bankCode),
    );

  const start = sandbox.state.now();
  const events: Event[] = [];
  for (let i = 0; i < orderCount; i++) events.push({ at: start + Math.floor(r() * (hours - 2) * HOUR), kind: 'order' });
  for (let q = 1; q <= hours * 4; q++) {
    const mark = start + q * 15 * MIN;
    const late = Math.floor(r() * 3 * MIN);
    if (q % 4 !== 0) events.push({ at: mark + late, kind: 'sweep' });
    else if (r() < 0.3) events.push({ at: mark + late, kind: 'both' });
    else {
      events.push({ at: mark + late, kind: 'sweep' });
      events.push({ at: mark + Math.floor(r() * 3 * MIN), kind: 'snapshot' });
    }
  }
  events.push({ at: start + 30 * 1000, kind: 'snapshot' });
  const phase = Math.floor(r() * 40 * MIN);
  for (let b = start + phase; b < start + hours * HOUR; b += 40 * MIN) events.push({ at: b, kind: 'batch' });
  const planted = { currency: CURRENCIES[Math.floor(r() * CURRENCIES.length)], delta: plantedDelta(r), at: new Date(0) };
  events.push({ at: start + 2 * HOUR + Math.floor(r() * (hours - 4) * HOUR), kind: 'plant' });
  // Movements draw from a generator of their own, so a seed's orders and plant are the same with or without them.
  const rm = rng(opts.seed + 1_000_003);
  for (let i = 0; i < (opts.movements ?? 0); i++) {
    const at = start + HOUR + Math.floor(rm() * (hours - 3) * HOUR);
    const currency = CURRENCIES[Math.floor(rm() * CURRENCIES.length)];
    const size = new Decimal(10).pow(2 + rm() * 5).toDecimalPlaces(2);
    const movement = { reference: `SIM-${opts.seed}-${i}`, currency, delta: (rm() < 0.5 ? size.neg() : size).toFixed(2) };
    events.push({ at, kind: 'record', movement });
    events.push({ at: at + Math.floor(rm() * 2 * MIN), kind: 'land', movement });
  }
  if (opts.lateFeeCorrection) events.push({ at: start + 30 * HOUR, kind: 'feefix' }, { at: start + 31 * HOUR, kind: 'rerun' });
  events.sort((a, b) => a.at - b.at);
  let corrected: { currency: string; createdAt: number } | null = null;
  const feeFix = async () => {
    const o = [...sandbox.state.orders.values()].find((x) => x.direction === 'payout' && x.status === 'Success');
    if (!o) throw new Error('no settled payout to correct the fee of');
    o.fee = new Decimal(o.fee).plus('1.00').toFixed(2);
    await control.adjustBalance(o.currency, '-1.00');
    corrected = { currency: o.currency, createdAt: o.createdAt };
  };
  const rerun = async () => {
    if (!corrected) return;
    const date = new Date(corrected.createdAt).toISOString().slice(0, 10);
    await reconcile(reconcileDeps, { selection: buildSelection({ date }, { now: now(), zone: 'UTC', lookbackDays: 30 }), dryRun: false });
  };

  const snapshot = () =>
    takeSnapshots(
      {
        db,
        client: snapshotClient,
        policy: snapshotPolicyFromConfig(config),
        clock: now,
        logger: silentLogger,
        checkOpenOrders: openOrderChecker(reconcileDeps, { lookbackDays: 30, waitMs: 10 * MIN }),
      },
      CURRENCIES,
    );
  const sweep = () =>
    reconcile(reconcileDeps, { selection: buildSelection({}, { now: now(), zone: 'UTC', lookbackDays: 30 }), dryRun: false });

  const unrecorded: Unrecorded[] = [];
  const kinds = Object.fromEntries(ORDER_KINDS.map((k) => [k, 0])) as Record<OrderKind, number>;
  try {
    for (const e of events) {
      const ahead = e.at - sandbox.state.now();
      if (ahead > 0) await control.advanceClock(ahead);
      if (e.kind === 'order') {
        const kind = await placeOrder(r, db.knex, client, control, banks, now, unrecorded, start + hours * HOUR - 90 * MIN);
        kinds[kind]++;
      } else if (e.kind === 'batch') await recordBatch(db.knex, control, unrecorded, now);
      else if (e.kind === 'sweep') await sweep();
      else if (e.kind === 'snapshot') await snapshot();
      else if (e.kind === 'both') await Promise.all([sweep(), snapshot()]);
      else if (e.kind === 'record') await recordMovement(db.knex, e.movement, now());
      else if (e.kind === 'land') await control.adjustBalance(e.movement.currency, e.movement.delta);
      else if (e.kind === 'feefix') await feeFix();
      else if (e.kind === 'rerun') await rerun();
      else {
        planted.at = now();
        await control.adjustBalance(planted.currency, planted.delta);
      }
    }
    await opts.inspect?.(db.knex, db);
    return await evaluate(db.knex, { seed: opts.seed, hours, orders: orderCount, planted, kinds, movements: opts.movements ?? 0 });
  } finally {
    await client.close();
    await sandbox.close();
    await db.close();
    await t.drop();
  }
}

/** Treasury records the movement at the moment it is sent, and a second person approves it. */
async function recordMovement(knex: import('knex').Knex, m: Movement, at: Date): Promise<void> {
  const out = m.delta.startsWith('-');
  await knex.transaction(async (trx) => {
    await insertMovements(
      trx,
      [
        {
          reference: m.reference,
          currency: m.currency,
          direction: out ? 'out' : 'in',
          amount: out ? m.delta.slice(1) : m.delta,
          occurredFrom: at,
          occurredTo: at,
          kind: out ? 'withdrawal' : 'top_up',
          usdtAmount: null,
          usdtRate: null,
          note: '',
        },
      ],
      { recordedBy: 'treasury', source: 'simulation', at },
    );
    await approveMovement(trx, m.reference, 'controller', at);
  });
}

/** Draws an order kind: most live, the rest the merchant's batch-recorded final orders (issue 43). */
function drawKind(r: Rng): OrderKind {
  const x = r();
  return x < 0.5 ? 'live' : x < 0.7 ? 'agree' : x < 0.8 ? 'kept-pending' : x < 0.9 ? 'provider-fails' : 'provider-settles';
}

async function placeOrder(
  r: Rng,
  knex: import('knex').Knex,
  client: Awaited<ReturnType<typeof createProviderClient>>,
  control: SandboxControl,
  banks: Map<Currency, string[]>,
  now: () => Date,
  unrecorded: Unrecorded[],
  lastRecord: number,
): Promise<OrderKind> {
  const currency = CURRENCIES[Math.floor(r() * CURRENCIES.length)];
  const direction: Direction = r() < 0.65 ? 'payment' : 'payout';
  const kind = drawKind(r);
  // Recorded from right away up to 3 hours on: before or after the snapshots around the provider's finality;
  // by 90 minutes before the end, so a batch and a snapshot follow it (the run ends; the merchant would go on).
  const recordAfter = Math.min(now().getTime() + Math.floor(r() * 3 * HOUR), lastRecord);
  const scale = { INR: 1_000, NGN: 50_000, IDR: 500_000 }[currency];
  const amount = `${Math.floor(scale * (0.1 + r() * (direction === 'payment' ? 10 : 2)))}.${String(Math.floor(r() * 100)).padStart(2, '0')}`;
  const merchantRef = randomUUID();
  const method = DEMO_METHODS[direction][currency];
  const person = { name: 'Sim Customer', phone: '+15550000000', email: 'sim@example.com' };
  let order: NewOrder;
  if (direction === 'payment') {
    const res = await client.initiatePayment({
      merchantRef,
      currency,
      method,
      amount,
      ...person,
      redirectUrl: 'https://shop.example.com/done',
    });
    order = { merchantRef, transactionRef: res.transactionRef, currency, method, amount, createdAt: now() };
  } else {
    const list = banks.get(currency);
    const bankCode = list ? list[Math.floor(r() * list.length)] : 'HDFC0001234';
    const res = await client.initiatePayout({ merchantRef, currency, method, amount, bankCode, account: '0123456789', ...person });
    order = { merchantRef, transactionRef: res.transactionRef, currency, method, amount, fee: res.fee, bankCode, createdAt: now() };
  }
  if (kind === 'live') {
    await insertOrders(knex, direction, [order]);
    return kind;
  }
  // The provider's side of a disagreement, pinned: it moves no money (a payout's hold stays held).
  const ref = order.transactionRef;
  if (kind === 'kept-pending') await control.setOrder(ref, { status: direction === 'payment' ? 'Pending' : 'Initiated' });
  if (kind === 'provider-fails')
    await control.setOrder(ref, direction === 'payment' ? { status: 'Failed', paidAmount: '0' } : { status: 'Failed' });
  unrecorded.push({ direction, kind, recordAfter, order });
  return kind;
}

/**
 * The merchant's batch: each order due to be recorded, already final in its books (finalized at its
 * creation, as an import does). `agree` and `provider-settles` read the provider's planned outcome, so the
 * merchant may record it before the provider reaches it; an order the provider will never finish is
 * recorded Success (the `kept-pending` case).
 */
async function recordBatch(knex: import('knex').Knex, control: SandboxControl, unrecorded: Unrecorded[], now: () => Date): Promise<void> {
  const due = unrecorded.filter((u) => u.recordAfter <= now().getTime());
  for (const u of due) {
    unrecorded.splice(unrecorded.indexOf(u), 1);
    const provider = await control.getOrder(u.order.transactionRef);
    const outcome = provider?.plan?.status ?? provider?.status;
    const providerSucceeds = outcome === 'Success';
    const success = u.kind === 'agree' ? providerSucceeds : u.kind !== 'provider-settles' || !providerSucceeds;
    const fee = u.direction === 'payment' ? new Decimal(u.order.amount).times('0.02').toFixed(2) : u.order.fee;
    await insertOrders(knex, u.direction, [
      {
        ...u.order,
        status: success ? 'Success' : 'Failed',
        statusCategory: success ? 'success' : 'failed',
        ...(u.direction === 'payment' && success && { paidAmount: u.order.amount, fee }),
        finalizedAt: u.order.createdAt,
        ...(u.direction === 'payout' && success && { utr: u.order.currency === 'INR' ? `SIMUTR${u.order.merchantRef.slice(0, 8)}` : null }),
      },
    ]);
  }
}

async function evaluate(
  knex: import('knex').Knex,
  run: {
    seed: number;
    hours: number;
    orders: number;
    planted: SimResult['planted'];
    kinds: Record<OrderKind, number>;
    movements: number;
  },
): Promise<SimResult> {
  const counted = (
    await knex.raw(
      `SELECT (SELECT coalesce(sum(movements_count), 0) FROM balance_checks)
            + (SELECT count(*) FROM balance_checks c, jsonb_array_elements(c.timing_items) i
                WHERE i->>'direction' = 'movement' AND (i->>'assignedIn')::boolean) AS n`,
    )
  ).rows[0] as { n: string | number };
  // Each window as last judged; first_drift: it was drift when first judged, and judged again since.
  const rows = (
    await knex.raw(
      `SELECT c.currency, c.drift::text AS drift, c.within_tolerance, c.first_drift IS NOT NULL AS ever_beyond,
              jsonb_array_length(c.timing_items) AS timing,
              o.taken_at AS opening_at, s.requested_at AS closing_requested_at, s.taken_at AS closing_at
         FROM balance_checks c
         JOIN balance_snapshots o ON o.id = c.opening_snapshot_id
         JOIN balance_snapshots s ON s.id = c.closing_snapshot_id
        ORDER BY c.currency, s.taken_at`,
    )
  ).rows as Array<{
    currency: Currency;
    drift: string;
    within_tolerance: boolean;
    ever_beyond: boolean;
    timing: number;
    opening_at: Date;
    closing_requested_at: Date;
    closing_at: Date;
  }>;
  const { planted } = run;
  const beyond = rows.filter((w) => !w.within_tolerance);
  const plantedWindows = beyond.filter((w) => w.currency === planted.currency);
  const inWindow = (w: (typeof rows)[number]) => w.opening_at <= planted.at && planted.at <= w.closing_requested_at;
  const exact = plantedWindows.filter((w) => inWindow(w) && new Decimal(w.drift).equals(planted.delta));
  return {
    ...run,
    windows: rows.length,
    timingItems: rows.reduce((n, w) => n + Number(w.timing), 0),
    rejudged: rows.filter((w) => w.ever_beyond && w.within_tolerance).length,
    falseDrifts: beyond.filter((w) => !exact.includes(w)).map((w) => ({ currency: w.currency, drift: w.drift, closingAt: w.closing_at })),
    plantedFound: exact.length === 1 && plantedWindows.length === 1,
    plantedWindows: plantedWindows.map((w) => ({ drift: w.drift, openingAt: w.opening_at, closingAt: w.closing_at })),
    movementsCounted: Number(counted.n),
  };
}
