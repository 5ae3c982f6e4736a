import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import type { SelectionRequest } from '../src/reconcile/selection.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';

/** Every date in this file comes from here, not from the wall clock: noon, so no test straddles midnight. */
const NOW = new Date('2026-03-10T12:00:00Z');
const TODAY = '2026-03-10';
const clock = () => NOW;

/** A fresh world per test (database, sandbox on the fixed clock, 40 payments and 30 payouts), so no test depends on another's order. */
async function seededWorld(name: string): Promise<{ world: World; orders: SeededOrder[] }> {
  const world = await createWorld(name, { sandbox: { now: () => NOW.getTime() }, client: { now: () => NOW.getTime() } });
  const orders = await seedMerchant(world.t.db.knex, world.client, { payments: 40, payouts: 30, seed: 7, createdAt: clock });
  return { world, orders };
}

// Small pages: several batches, checkpoints and read-ahead even with few orders.
const run = (world: World, request: SelectionRequest = {}, dryRun = false) =>
  reconcileWorld(world, { request, clock, dryRun, batchSize: 7 });

type Item = {
  direction: string;
  merchant_ref: string;
  transaction_ref: string;
  verdict: string;
  codes: string[];
  details: Array<{ code: string; local: string | null; provider: string | null }>;
};

async function itemsOf(world: World, runId: string): Promise<Map<string, Item>> {
  const rows: Item[] = await world.t.db.knex('recon_items').where({ run_id: runId }).select('*');
  return new Map(rows.map((r) => [r.transaction_ref, r]));
}

describe('reconcile against the sandbox', () => {
  let world: World;
  let orders: SeededOrder[];
  const pick = (direction: string, currency: string | null, n: number) =>
    orders.filter((o) => o.direction === direction && (currency === null || o.currency === currency))[n];

  beforeEach(async () => {
    ({ world, orders } = await seededWorld('reconcile'));
  });
  afterEach(() => world?.close());

  it('finds every mismatch code with the two values that disagree, and resolves the rest', async () => {
    const { control, t } = world;
    const ngnBanks = (await world.client.bankCodes('NGN')).map((b) => b.bankCode);
    await control.advanceClock(2_000); // every order final at the provider

    const under = pick('payment', null, 0);
    const amount = pick('payment', null, 1);
    const fee = pick('payment', null, 2);
    const currency = pick('payment', null, 3);
    const method = pick('payment', null, 4);
    const ref = pick('payment', null, 5);
    const gone = pick('payment', null, 6);
    const stale = pick('payment', null, 7);
    const unknown = pick('payment', null, 8);
    const utr = pick('payout', 'INR', 0);
    const bank = pick('payout', 'NGN', 0);

    const provider = async (o: SeededOrder) => (await control.getOrder(o.transactionRef))!;
    const underAt = await provider(under);
    await control.setOrder(under.transactionRef, { paidAmount: '1.00' });
    const amountAt = await provider(amount);
    await control.setOrder(amount.transactionRef, { amount: '999999.99' });
    const feeAt = await provider(fee);
    await t.db.knex('payment_orders').where({ transaction_ref: fee.transactionRef }).update({ fee: '0.01' });
    await control.setOrder(currency.transactionRef, { currency: currency.currency === 'INR' ? 'NGN' : 'INR' });
    await control.setOrder(method.transactionRef, { method: 'CARD' });
    await control.setOrder(ref.transactionRef, { merchantRef: '00000000-0000-4000-8000-000000000000' });
    await control.deleteOrder(gone.transactionRef);
    await control.setOrder(stale.transactionRef, { status: 'Pending' });
    await t.db
      .knex('payment_orders')
      .where({ transaction_ref: stale.transactionRef })
      .update({ created_at: new Date(NOW.getTime() - 2 * 86_400_000) });
    await control.setOrder(unknown.transactionRef, { status: 'Settling' });
    await control.setOrder(utr.transactionRef, { status: 'Success', utr: '' });
    const now = NOW;
    await t.db
      .knex('bank_codes')
      .insert(ngnBanks.map((c) => ({ currency: 'NGN', bank_code: c, bank_name: c, first_seen_at: now, last_seen_at: now })));
    const bankRow = await t.db.knex('payout_orders').where({ transaction_ref: bank.transactionRef }).first();
    await t.db.knex('bank_codes').where({ currency: 'NGN', bank_code: bankRow.bank_code }).delete();

    const outcome = await run(world);
    expect(outcome.status).toBe('completed');
    const [summary] = outcome.runs;
    expect(summary.selected).toBe(orders.length);
    expect(summary.checked).toBe(orders.length);
    const items = await itemsOf(world, summary.runId);
    expect(items.size).toBe(orders.length);

    const finding = (o: SeededOrder, code: string) => items.get(o.transactionRef)!.details.find((d) => d.code === code);
    expect(items.get(under.transactionRef)!.codes).toEqual(['PAID_AMOUNT']);
    expect(finding(under, 'PAID_AMOUNT')).toMatchObject({ local: underAt.amount, provider: '1' });
    expect(items.get(amount.transactionRef)!.codes).toContain('AMOUNT');
    expect(finding(amount, 'AMOUNT')).toMatchObject({ local: amountAt.amount, provider: '999999.99' });
    expect(items.get(fee.transactionRef)!.codes).toEqual(['FEE']);
    expect(finding(fee, 'FEE')).toMatchObject({ local: '0.01', provider: feeAt.fee });
    expect(items.get(currency.transactionRef)!.codes).toContain('CURRENCY');
    expect(items.get(method.transactionRef)!.codes).toEqual(['METHOD']);
    expect(finding(method, 'METHOD')).toMatchObject({ provider: 'CARD' });
    expect(items.get(ref.transactionRef)!.codes).toEqual(['MERCHANT_REF']);
    expect(items.get(gone.transactionRef)!.codes).toEqual(['NOT_FOUND']);
    expect(items.get(stale.transactionRef)!.codes).toEqual(['STALE']);
    expect(items.get(unknown.transactionRef)!.verdict).toBe('pending');
    expect(items.get(utr.transactionRef)!.codes).toEqual(['UTR_MISSING']);
    expect(items.get(bank.transactionRef)!.codes).toEqual(['BANK_CODE']);

    // Everything not tampered with became final and consistent: resolved, and written to the order.
    const tampered = new Set([under, amount, fee, currency, method, ref, gone, stale, unknown, utr, bank].map((o) => o.transactionRef));
    const clean = orders.filter((o) => !tampered.has(o.transactionRef));
    for (const o of clean) expect(items.get(o.transactionRef)!.verdict, o.transactionRef).toBe('resolved');
    const resolvedRow = await t.db
      .knex('payment_orders')
      .where({ transaction_ref: clean.find((o) => o.direction === 'payment')!.transactionRef })
      .first();
    expect(resolvedRow.status).toBe('Success');
    expect(resolvedRow.status_category).toBe('success');
    expect(resolvedRow.finalized_at).toBeInstanceOf(Date);
    expect(typeof resolvedRow.paid_amount).toBe('string');

    // The run row carries the counts per verdict and code.
    const runRow = await t.db.knex('job_runs').where({ id: summary.runId }).first();
    expect(runRow.status).toBe('completed');
    expect(runRow.counts['verdict:resolved']).toBe(clean.length);
    expect(runRow.counts['code:NOT_FOUND']).toBe(1);
  });

  it('does not re-check final orders in the default run, and a final order contradicted by the provider is a STATUS mismatch on rerun', async () => {
    await world.control.advanceClock(2_000);
    expect((await run(world)).runs[0].checked).toBe(orders.length);
    const again = await run(world);
    const checkedAgain = again.runs[0].checked;
    // Only the still-open orders are due, and they are not due yet (backoff).
    expect(checkedAgain).toBe(0);

    const target = orders.filter((o) => o.direction === 'payment').at(-1)!;
    const before = await world.t.db.knex('payment_orders').where({ transaction_ref: target.transactionRef }).first();
    expect(before.status).toBe('Success');
    await world.control.setOrder(target.transactionRef, { status: 'Failed' });
    const rerun = await run(world, { date: TODAY });
    const items = await itemsOf(world, rerun.runs[0].runId);
    expect(items.size).toBe(orders.length);
    expect(items.get(target.transactionRef)!.codes).toContain('STATUS');
    const after = await world.t.db.knex('payment_orders').where({ transaction_ref: target.transactionRef }).first();
    expect(after.status).toBe(before.status); // a final local status never moves backwards
  });

  it('a --date rerun is idempotent: same verdicts, no order changed', async () => {
    await world.control.advanceClock(2_000);
    await world.control.setOrder(pick('payment', null, 0).transactionRef, { paidAmount: '1.00' });
    await run(world); // the first check resolves the open orders; the reruns below only re-read them
    const snapshot = async () =>
      (
        await world.t.db.knex('payment_orders').select('transaction_ref', 'status', 'paid_amount', 'fee', 'finalized_at').orderBy('id')
      ).concat(await world.t.db.knex('payout_orders').select('transaction_ref', 'status', 'utr', 'fee', 'finalized_at').orderBy('id'));
    const first = await run(world, { date: TODAY });
    const ordersAfterFirst = await snapshot();
    const second = await run(world, { date: TODAY });
    expect(await snapshot()).toEqual(ordersAfterFirst);
    const a = await itemsOf(world, first.runs[0].runId);
    const b = await itemsOf(world, second.runs[0].runId);
    expect(b.size).toBe(orders.length);
    expect(a.size).toBe(orders.length);
    expect([...a.values()].filter((i) => i.codes.includes('PAID_AMOUNT'))).toHaveLength(1);
    for (const [refKey, item] of a)
      expect({ v: b.get(refKey)!.verdict, c: b.get(refKey)!.codes }).toEqual({ v: item.verdict, c: item.codes });
  });

  it('a dry run writes nothing but its run record', async () => {
    await world.control.advanceClock(2_000);
    const ordersBefore = await world.t.db.knex('payment_orders').select('transaction_ref', 'status', 'finalized_at').orderBy('id');
    const outcome = await run(world, { date: TODAY }, true);
    expect(outcome.runs[0].checked).toBe(orders.length);
    const after = await world.t.db.knex('recon_items').count<{ n: string }[]>('* as n');
    expect(after[0].n).toBe('0');
    expect(await world.t.db.knex('payment_orders').select('transaction_ref', 'status', 'finalized_at').orderBy('id')).toEqual(ordersBefore);
    const runRow = await world.t.db.knex('job_runs').where({ id: outcome.runs[0].runId }).first();
    expect(runRow.dry_run).toBe(true);
    expect(runRow.checked).toBe(orders.length);
  });

  it('tells the metrics once per batch and verdict how many orders it checked, adding up to the run counts', async () => {
    await world.control.advanceClock(2_000);
    await world.control.setOrder(pick('payment', null, 0).transactionRef, { paidAmount: '1.00' });
    const calls: Array<{ direction: string; verdict: string; count: number }> = [];
    const outcome = await reconcileWorld(world, {
      clock,
      batchSize: 7,
      onChecked: (direction, verdict, count) => calls.push({ direction, verdict, count }),
    });
    const { counts, checked } = outcome.runs[0];
    expect(checked).toBe(orders.length);
    // 40 payments and 30 payouts in pages of 7: 11 batches, each reporting each of its verdicts once.
    expect(calls.length).toBeLessThanOrEqual(11 * new Set(calls.map((c) => c.verdict)).size);
    expect(calls.length).toBeLessThan(orders.length);
    const summed: Record<string, number> = {};
    for (const c of calls) summed[`verdict:${c.verdict}`] = (summed[`verdict:${c.verdict}`] ?? 0) + c.count;
    expect(summed).toEqual(Object.fromEntries(Object.entries(counts).filter(([k]) => k.startsWith('verdict:'))));
  });

  it('--ref checks one order by merchantRef or transactionRef', async () => {
    const o = orders[3];
    for (const ref of [o.merchantRef, o.transactionRef]) {
      const outcome = await run(world, { ref });
      expect(outcome.runs[0].selected).toBe(1);
    }
  });

  it('stops at once with a credentials message on 403, naming the settings to check once, writing no items', async () => {
    const faultId = await world.control.addFault({ kind: 'status403' });
    try {
      const outcome = await run(world, { date: TODAY });
      expect(outcome.status).toBe('credentials');
      expect(outcome.runs[0].error?.match(/check PROVIDER_MERCHANT_ID, PROVIDER_SECRET and PROVIDER_SIGNATURE/g)).toHaveLength(1);
      const n = await world.t.db.knex('recon_items').where({ run_id: outcome.runs[0].runId }).count<{ n: string }[]>('* as n');
      expect(Number(n[0].n)).toBe(0);
    } finally {
      await world.control.clearFaults();
      void faultId;
    }
  });

  it('stops as provider_unavailable when most fetches fail, instead of writing error rows for every order', async () => {
    // More orders than the failure window, so the window can fill.
    await seedMerchant(world.t.db.knex, world.client, { payments: 80, payouts: 0, seed: 8, createdAt: clock });
    await world.control.addFault({ kind: 'status500' });
    try {
      const outcome = await run(world, { date: TODAY });
      expect(outcome.status).toBe('provider_unavailable');
      expect(outcome.runs[0].checked).toBeLessThan(outcome.runs[0].selected);
    } finally {
      await world.control.clearFaults();
    }
  });
});

describe('reconcile smoke path on embedded PGlite', () => {
  let world: World;
  beforeAll(async () => {
    world = await createWorld('reconcile_pglite', {
      db: { engine: 'pglite' },
      sandbox: { now: () => NOW.getTime() },
      client: { now: () => NOW.getTime() },
    });
  });
  afterAll(() => world?.close());

  it('seeds, resolves every order, and finds an injected underpayment', async () => {
    const orders = await seedMerchant(world.t.db.knex, world.client, { payments: 12, payouts: 8, seed: 3, createdAt: clock });
    await world.control.advanceClock(2_000);
    const victim = orders.find((o) => o.direction === 'payment')!;
    await world.control.setOrder(victim.transactionRef, { paidAmount: '1.5' });
    const outcome = await run(world);
    expect(outcome.status).toBe('completed');
    const items = await itemsOf(world, outcome.runs[0].runId);
    expect(items.size).toBe(20);
    expect(items.get(victim.transactionRef)!.codes).toEqual(['PAID_AMOUNT']);
    expect([...items.values()].filter((i) => i.verdict === 'resolved')).toHaveLength(19);
  });
});
