/**
 * Provider faults during a real reconcile run: the sandbox over HTTP injects one fault kind per
 * chosen order (targeted by transactionRef), Postgres holds the orders and the results. The run
 * must complete, record one item per selected order, retry a bounded number of times (counted by
 * the sandbox), turn persistent faults into `error` items with their reason, recover from transient
 * ones, and never change an order on a bad answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import type { ProviderClient } from '../src/provider/client.ts';
import { reconcile, type ReconcileOutcome } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { loadActiveBankCodes } from '../src/db/bank-codes.ts';
import { silentLogger } from '../src/log/logger.ts';
import type { FaultSpec } from '../src/sandbox/types.ts';

const MAX_RETRIES = 2;
const ATTEMPTS = 1 + MAX_RETRIES;
/** Persistent faults get a large finite count, so the sandbox's remaining count tells how many requests hit them. */
const BUDGET = 1000;
/** How long one call may wait on 429s in total: one Retry-After of 1 s fits, and persistent 429s end the test quickly. */
const MAX_THROTTLED_MS = 1500;

interface Case {
  name: string;
  fault: Omit<FaultSpec, 'transactionRefs' | 'operations'>;
  /** The item's verdict is error with a reason matching this; undefined: a transient fault, the order is checked normally. */
  reason?: RegExp;
  /** Exact attempts the client must make (retryable faults); otherwise 1..ATTEMPTS. */
  attempts?: number;
  /** A 429: retried beyond maxRetries (it is a refusal, not a failure) until MAX_THROTTLED_MS of waiting is spent. */
  throttled?: boolean;
}

const CASES: Case[] = [
  { name: '500 burst then success', fault: { kind: 'status500', count: 2 } },
  { name: '429 without Retry-After, once', fault: { kind: 'status429', count: 1 } },
  { name: '429 with Retry-After: 1, once', fault: { kind: 'status429', retryAfterSec: 1, count: 1 } },
  { name: 'timeout (accepted, never answered), once', fault: { kind: 'timeout', count: 1 } },
  { name: 'persistent 500', fault: { kind: 'status500', count: BUDGET }, reason: /500/, attempts: ATTEMPTS },
  { name: 'persistent 429', fault: { kind: 'status429', count: BUDGET }, reason: /429/, throttled: true },
  {
    name: 'persistent 429 with Retry-After',
    fault: { kind: 'status429', retryAfterSec: 0, count: BUDGET },
    reason: /429/,
    throttled: true,
  },
  { name: 'server accepts and never answers', fault: { kind: 'timeout', count: BUDGET }, reason: /time/i, attempts: ATTEMPTS },
  { name: 'connection reset', fault: { kind: 'reset', count: BUDGET }, reason: /reset|socket|closed/i, attempts: ATTEMPTS },
  { name: 'HTML 502 page', fault: { kind: 'htmlError', count: BUDGET }, reason: /502|HTML/i, attempts: ATTEMPTS },
  { name: 'HTML page with 200', fault: { kind: 'htmlError', httpStatus: 200, count: BUDGET }, reason: /HTML/i },
  { name: 'huge body', fault: { kind: 'hugeBody', bytes: 8 * 1024 * 1024, count: BUDGET }, reason: /large|bytes|MiB|size|limit/i },
  { name: 'malformed JSON', fault: { kind: 'malformedJson', count: BUDGET }, reason: /JSON/i },
  { name: 'missing status field', fault: { kind: 'missingField', field: 'status', count: BUDGET }, reason: /status/ },
  { name: 'missing amount field', fault: { kind: 'missingField', field: 'amount', count: BUDGET }, reason: /amount/ },
  { name: 'status of the wrong type (a number)', fault: { kind: 'wrongFieldType', field: 'status', count: BUDGET }, reason: /status/ },
  {
    name: 'merchantRef of the wrong type (a number)',
    fault: { kind: 'wrongFieldType', field: 'merchantRef', count: BUDGET },
    reason: /merchantRef/,
  },
  { name: 'answer for a different transactionRef', fault: { kind: 'wrongTransactionRef', count: BUDGET }, reason: /transactionRef/ },
];

const ORDER_FIELDS = ['status', 'status_category', 'amount', 'paid_amount', 'fee', 'finalized_at'] as const;

describe('provider faults during a reconcile run', () => {
  let world: World;
  let client: ProviderClient;
  let orders: SeededOrder[];
  let outcome: ReconcileOutcome;
  let target: Map<string, SeededOrder>; // case name -> order
  let unknownOrder: SeededOrder;
  let before: Map<string, Record<string, unknown>>;
  let faultIds: Map<string, string>;
  let requestsBefore: number;

  const rowOf = async (o: SeededOrder) =>
    world.t.db
      .knex(o.direction === 'payment' ? 'payment_orders' : 'payout_orders')
      .where({ transaction_ref: o.transactionRef })
      .first();

  beforeAll(async () => {
    world = await createWorld('fault_provider');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 50, payouts: 20, seed: 21 });
    await world.control.advanceClock(2_000); // every order final at the provider
    client = await createProviderClient(world.config, {
      logger: silentLogger,
      retryBaseMs: 5,
      timeoutMs: 300,
      maxRetries: MAX_RETRIES,
      maxThrottledMs: MAX_THROTTLED_MS,
    });

    // Spread the faults over both directions.
    const pool = [
      ...orders.filter((o) => o.direction === 'payment').slice(0, 14),
      ...orders.filter((o) => o.direction === 'payout').slice(0, 6),
    ];
    target = new Map(CASES.map((c, i) => [c.name, pool[i]]));
    unknownOrder = pool[CASES.length];
    faultIds = new Map();
    for (const c of CASES) {
      const o = target.get(c.name)!;
      const operations = [o.direction === 'payment' ? 'paymentFetch' : 'payoutFetch'] as FaultSpec['operations'];
      faultIds.set(c.name, await world.control.addFault({ ...c.fault, operations, transactionRefs: [o.transactionRef] }));
    }
    await world.control.addFault({
      kind: 'unknownStatus',
      statusText: 'Settling',
      count: BUDGET,
      transactionRefs: [unknownOrder.transactionRef],
    });

    before = new Map();
    for (const o of [...target.values(), unknownOrder]) before.set(o.transactionRef, await rowOf(o));
    requestsBefore = (await world.control.stats()).requests.total;

    const today = new Date().toISOString().slice(0, 10);
    outcome = await reconcile(
      {
        db: world.t.db,
        fetcher: client,
        policy: policyFromConfig(world.config, await loadActiveBankCodes(world.t.db.knex)),
        clock: () => new Date(),
        logger: silentLogger,
        concurrency: 8,
        batchSize: 10,
      },
      { selection: buildSelection({ date: today }, { now: new Date(), zone: 'UTC', lookbackDays: 30 }), dryRun: false },
    );
  });
  afterAll(async () => {
    await client?.close();
    await world?.close();
  });

  const itemOf = async (o: SeededOrder) =>
    world.t.db.knex('recon_items').where({ run_id: outcome.runs[0].runId, transaction_ref: o.transactionRef });

  it('the run completes and records exactly one item per selected order', async () => {
    expect(outcome.status).toBe('completed');
    const run = outcome.runs[0];
    expect(run.selected).toBe(orders.length);
    expect(run.checked).toBe(orders.length);
    const perOrder = await world.t.db
      .knex('recon_items')
      .where({ run_id: run.runId })
      .select('direction', 'order_id')
      .count<{ n: string }[]>('* as n')
      .groupBy('direction', 'order_id');
    expect(perOrder).toHaveLength(orders.length);
    expect(perOrder.every((r) => Number(r.n) === 1)).toBe(true);
    const errors = CASES.filter((c) => c.reason).length;
    expect(run.counts['verdict:error']).toBe(errors);
  });

  it.each(CASES.filter((c) => c.reason))(
    'persistent fault, $name: an error item with its reason, after a bounded number of attempts',
    async (c) => {
      const [item] = await itemOf(target.get(c.name)!);
      expect(item.verdict).toBe('error');
      expect(item.reason).toMatch(c.reason!);
      const left = (await world.control.listFaults()).find((f) => f.id === faultIds.get(c.name));
      const attempts = BUDGET - (left?.remaining ?? 0);
      if (c.attempts !== undefined) expect(attempts).toBe(c.attempts);
      else if (c.throttled) {
        // Waits of 5, 10, 20 ms at most always fit in MAX_THROTTLED_MS: at least four attempts, and never unbounded.
        expect(attempts).toBeGreaterThan(ATTEMPTS);
        expect(attempts).toBeLessThan(BUDGET);
      } else {
        expect(attempts).toBeGreaterThanOrEqual(1);
        expect(attempts).toBeLessThanOrEqual(ATTEMPTS);
      }
    },
  );

  it.each(CASES.filter((c) => !c.reason))('transient fault, $name: retried, then the order is checked normally', async (c) => {
    const [item] = await itemOf(target.get(c.name)!);
    expect(item.verdict).toBe('resolved');
    expect(item.provider_status).toBe('Success');
    // Spent: the sandbox removes a fault once its count is used up.
    expect((await world.control.listFaults()).some((f) => f.id === faultIds.get(c.name))).toBe(false);
  });

  it('no order is changed by a bad answer', async () => {
    for (const c of CASES.filter((x) => x.reason)) {
      const o = target.get(c.name)!;
      const now = await rowOf(o);
      const was = before.get(o.transactionRef)!;
      for (const f of ORDER_FIELDS) expect(now[f], `${c.name}: ${f}`).toEqual(was[f]);
    }
  });

  it('an unknown status string is reported, never final, never a crash', async () => {
    const [item] = await itemOf(unknownOrder);
    expect(item.provider_status).toBe('Settling');
    expect(item.provider_category).toBe('unknown');
    expect(item.verdict).not.toBe('error');
    expect(item.reason).toContain('Settling');
    const now = await rowOf(unknownOrder);
    const was = before.get(unknownOrder.transactionRef)!;
    expect(['pending', 'unknown']).toContain(now.status_category);
    expect(now.finalized_at).toBeNull();
    expect(now.paid_amount).toEqual(was.paid_amount);
    expect(now.fee).toEqual(was.fee);
  });

  it('total provider requests stay within one per order plus the bounded retries of the faulty ones', async () => {
    const used = (await world.control.stats()).requests.total - requestsBefore;
    const faulty = CASES.length + 1;
    expect(used).toBeGreaterThanOrEqual(orders.length);
    expect(used).toBeLessThanOrEqual(orders.length + faulty * MAX_RETRIES);
  });
});
