/**
 * Issue 14, items 1 and 13: one bad provider value never stops a run or the runs after it.
 * Hostile values are patched into some orders at the sandbox (over real HTTP); every other
 * order must be checked and written, each hostile one gets an error item naming the field and value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection, type SelectionRequest } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { rng } from '../src/sandbox/prng.ts';
import { silentLogger } from '../src/log/logger.ts';
import type { OrderPatch } from '../src/sandbox/types.ts';

async function run(world: World, request: SelectionRequest = {}) {
  return reconcile(
    {
      db: world.t.db,
      fetcher: world.client,
      policy: policyFromConfig(world.config, new Map()),
      clock: () => new Date(),
      logger: silentLogger,
      concurrency: 4,
      batchSize: 6, // several batches, each holding hostile and clean orders together
    },
    { selection: buildSelection(request, { now: new Date(), zone: 'UTC', lookbackDays: 30 }), dryRun: false },
  );
}

interface Hostile {
  name: string;
  /** Which direction it can be thrown at (utr is a payout field at the provider). */
  direction?: 'payment' | 'payout';
  /** The sandbox sends a utr for INR payouts only. */
  currency?: 'INR';
  patch: OrderPatch;
  /** The field the error item must name, and the value as the reason shows it (JSON text). */
  field: string;
  shown: string;
}

const FORTY_DIGITS = '1234567890123456789012345678901234567890';

/** Values a hostile or broken provider could send, each refused with an error item for its order only. */
const HOSTILE: readonly Hostile[] = [
  { name: 'negative fee', patch: { status: 'Success', fee: '-5.00' }, field: 'fee', shown: '-5.00' },
  { name: 'negative amount', patch: { amount: '-100.00' }, field: 'amount', shown: '-100.00' },
  { name: 'negative paidAmount', direction: 'payment', patch: { status: 'Success', paidAmount: '-1' }, field: 'paidAmount', shown: '-1' },
  { name: 'forty-digit amount', patch: { amount: FORTY_DIGITS }, field: 'amount', shown: FORTY_DIGITS },
  { name: 'forty-digit fee', patch: { status: 'Success', fee: `0.${FORTY_DIGITS}` }, field: 'fee', shown: `0.${FORTY_DIGITS}` },
  {
    name: 'NUL in utr',
    direction: 'payout',
    currency: 'INR',
    patch: { status: 'Success', utr: 'UTR\u0000X' },
    field: 'utr',
    shown: '"UTR\\u0000X"',
  },
  { name: 'NUL in status', patch: { status: 'Succ\u0000ess' }, field: 'status', shown: '"Succ\\u0000ess"' },
  { name: 'escape in method', patch: { method: '\u001b[31mRED' }, field: 'method', shown: '"\\u001b[31mRED"' },
  { name: 'bell in merchantRef', patch: { merchantRef: 'ref\u0007' }, field: 'merchantRef', shown: '"ref\\u0007"' },
  { name: 'line break in status', patch: { status: 'Success\r\nX-Injected: 1' }, field: 'status', shown: '"Success\\r\\nX-Injected: 1"' },
];

type Item = { transaction_ref: string; verdict: string; reason: string; codes: string[] };

describe('hostile provider values', () => {
  let world: World;
  let orders: SeededOrder[];
  const hostileByRef = new Map<string, Hostile>();

  beforeAll(async () => {
    world = await createWorld('hostile_values');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 24, payouts: 16, seed: 14 });
    await world.control.advanceClock(2_000); // every order final at the provider
  });
  afterAll(() => world?.close());

  it('random hostile values at some orders: every other order is checked, each hostile one is an error item naming field and value; later runs too', async () => {
    const r = rng(1401);
    // Every hostile value at least once, the rest drawn at random, on random orders.
    const shuffled = [...orders].sort(() => r() - 0.5);
    const kinds = [...HOSTILE, ...Array.from({ length: 4 }, () => HOSTILE[Math.floor(r() * HOSTILE.length)])];
    for (const h of kinds) {
      const o = shuffled.find(
        (x) =>
          !hostileByRef.has(x.transactionRef) &&
          (!h.direction || h.direction === x.direction) &&
          (!h.currency || h.currency === x.currency),
      )!;
      hostileByRef.set(o.transactionRef, h);
      await world.control.setOrder(o.transactionRef, h.patch);
    }

    for (let attempt = 1; attempt <= 3; attempt++) {
      const outcome = await run(world, { date: new Date().toISOString().slice(0, 10) });
      const summary = outcome.runs.at(-1)!;
      expect(summary.status, `run ${attempt}: ${summary.error}`).toBe('completed');
      expect(summary.checked).toBe(orders.length);
      const items: Item[] = await world.t.db.knex('recon_items').where({ run_id: summary.runId }).select('*');
      const byRef = new Map(items.map((i) => [i.transaction_ref, i]));
      expect(byRef.size).toBe(orders.length);
      for (const o of orders) {
        const item = byRef.get(o.transactionRef)!;
        const h = hostileByRef.get(o.transactionRef);
        if (h) {
          expect(item.verdict, `${h.name}`).toBe('error');
          expect(item.reason, h.name).toContain(h.field);
          expect(item.reason, h.name).toContain(h.shown);
          expect(item.reason, h.name).not.toMatch(/UPDATE|INSERT|unnest/);
        } else {
          expect(['resolved', 'matched'], `${o.transactionRef}: ${item.reason}`).toContain(item.verdict);
        }
      }
    }
    // Clean orders were written: final locally. Hostile ones were left as they were.
    for (const o of orders) {
      const row = await world.t.db
        .knex(o.direction === 'payment' ? 'payment_orders' : 'payout_orders')
        .where({ transaction_ref: o.transactionRef })
        .first();
      if (hostileByRef.has(o.transactionRef)) expect(row.status).toBe('Initiated');
      else expect(row.status_category).toBe('success');
    }
  });

  it('a value the database refuses for any other reason is an error item for that order; the rest of its batch is written', async () => {
    const { knex } = world.t.db;
    // A merchant's own rule the provider's value breaks: the parser cannot know it, the database refuses it.
    await knex.raw(`ALTER TABLE payment_orders ADD CONSTRAINT merchant_status_rule CHECK (status <> 'Refused')`);
    const victim = orders.find((o) => o.direction === 'payment' && !hostileByRef.has(o.transactionRef))!;
    await knex('payment_orders')
      .where({ transaction_ref: victim.transactionRef })
      .update({ status: 'Initiated', status_category: 'pending' });
    await world.control.setOrder(victim.transactionRef, { status: 'Refused' });
    const outcome = await run(world, { date: new Date().toISOString().slice(0, 10) });
    const summary = outcome.runs.at(-1)!;
    expect(summary.status, summary.error ?? '').toBe('completed');
    expect(summary.checked).toBe(orders.length);
    const items: Item[] = await knex('recon_items').where({ run_id: summary.runId }).select('*');
    expect(items).toHaveLength(orders.length);
    const item = items.find((i) => i.transaction_ref === victim.transactionRef)!;
    expect(item.verdict).toBe('error');
    expect(item.reason).toContain('status');
    expect(item.reason).toContain('"Refused"');
    expect(item.reason).not.toMatch(/UPDATE|INSERT|unnest/);
    const row = await knex('payment_orders').where({ transaction_ref: victim.transactionRef }).first();
    expect(row.status).toBe('Initiated');
    expect(row.last_checked_at).toBeInstanceOf(Date); // the check itself is recorded
  });

  it('a fee of 0.005 through the sandbox is a FEE finding with the exact value, stored exactly, never rounded to 0.01', async () => {
    const { knex } = world.t.db;
    const o = orders.find((x) => x.direction === 'payment' && !hostileByRef.has(x.transactionRef) && x.currency === 'INR')!;
    await knex('payment_orders')
      .where({ transaction_ref: o.transactionRef })
      .update({ status: 'Initiated', status_category: 'pending', fee: null });
    await world.control.setOrder(o.transactionRef, { fee: '0.005' });
    const outcome = await run(world, { ref: o.transactionRef });
    const [item] = await knex('recon_items').where({ run_id: outcome.runs.at(-1)!.runId });
    expect(item.verdict).toBe('mismatch');
    expect(item.codes).toEqual(['FEE']);
    expect(item.reason).toContain('fee 0.005 at provider is finer than INR allows (2 decimals)');
    expect(item.details).toEqual([{ code: 'FEE', local: null, provider: '0.005', note: expect.stringContaining('0.005') }]);
    const row = await knex('payment_orders').where({ transaction_ref: o.transactionRef }).first();
    expect(row.fee).toBe('0.005');
  });
});
