import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyCheckResults,
  countOrders,
  findOrderById,
  insertOrders,
  selectOrdersPage,
  type NewOrder,
  type OrderFilter,
  type CheckedOrderRow,
  type OrderRow,
} from '../src/db/orders.ts';
import { checkpointRun, createRun, findResumableRun, finishRun, lastRuns, findRun } from '../src/db/runs.ts';
import { insertItems, selectItemsByRun, type ReconItemRow } from '../src/db/items.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import type { Direction } from '../src/domain/types.ts';

const T0 = new Date('2024-03-01T00:00:00Z');
const hours = (h: number) => new Date(T0.getTime() + h * 3_600_000);

describe.each(availableEngines)('repositories on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`repos_${engine}`, { engine });
  });
  afterAll(() => t?.drop());

  it('round-trips orders with exact amounts and payout-only fields', async () => {
    const k = t.db.knex;
    const [p] = await insertOrders(k, 'payment', [
      {
        merchantRef: randomUUID(),
        transactionRef: randomUUID(),
        currency: 'INR',
        method: 'UPI',
        amount: '12345678901234.56',
        paidAmount: '0.1',
        fee: '0.10',
        createdAt: T0,
      },
    ]);
    expect(p).toMatchObject({
      direction: 'payment',
      amount: '12345678901234.56',
      paidAmount: '0.1',
      fee: '0.10',
      status: 'Initiated',
      statusCategory: 'pending',
      checkCount: 0,
      bankCode: null,
    });
    expect(typeof p.id).toBe('string');
    expect(p.createdAt).toEqual(T0);
    const [o] = await insertOrders(k, 'payout', [
      {
        merchantRef: randomUUID(),
        transactionRef: randomUUID(),
        currency: 'NGN',
        method: 'BANK',
        amount: '0.1',
        bankCode: '044',
        utr: null,
      },
    ]);
    expect(o).toMatchObject({ direction: 'payout', amount: '0.1', paidAmount: null, fee: null, bankCode: '044', utr: null });
    // A check's read: the whole row but the bookkeeping times no check reads.
    const back = await selectOrdersPage(k, 'payment', { mode: 'ref', ref: p.transactionRef }, null, 10);
    const { updatedAt: _u, openSeenAt: _o, lastCheckedAt: _l, nextCheckAt: _n, ...checked } = p;
    expect(back).toEqual([checked]);
    await expect(insertOrders(k, 'payment', [{ ...base(), amount: 1.5 as unknown as string }])).rejects.toThrow(/decimal text/);
    await expect(insertOrders(k, 'payout', [{ ...base(), paidAmount: '1' }])).rejects.toThrow(/payment field/);
  });

  it('bulk inserts more than one chunk', async () => {
    const rows = Array.from({ length: 1205 }, () => ({ ...base(), createdAt: hours(-5000) }));
    const out = await insertOrders(t.db.knex, 'payout', rows);
    expect(out).toHaveLength(1205);
    expect(out.map((r) => r.merchantRef)).toEqual(rows.map((r) => r.merchantRef));
  });

  describe('keyset pagination', () => {
    const made: Record<Direction, OrderRow[]> = { payment: [], payout: [] };
    beforeAll(async () => {
      for (const direction of ['payment', 'payout'] as const) {
        const rows: NewOrder[] = Array.from({ length: 53 }, (_, i) => ({
          ...base(),
          currency: (['INR', 'NGN', 'IDR'] as const)[i % 3],
          createdAt: hours(i),
          statusCategory: (['pending', 'unknown', 'success', 'failed'] as const)[i % 4],
          nextCheckAt: i % 5 === 0 ? null : hours(i + (i % 7) * 10),
        }));
        made[direction] = await insertOrders(t.db.knex, direction, rows);
      }
    });

    // Open orders on their schedule within the lookback; final ones only when a re-check was asked for, however old.
    const isDue = (o: OrderRow) =>
      (['pending', 'unknown'].includes(o.statusCategory) &&
        o.createdAt >= hours(10) &&
        (o.nextCheckAt === null || o.nextCheckAt <= hours(60))) ||
      (['success', 'failed'].includes(o.statusCategory) && o.nextCheckAt !== null && o.nextCheckAt <= hours(60));
    const filters: [string, OrderFilter, (o: OrderRow) => boolean][] = [
      ['due', { mode: 'due', asOf: hours(60), lookbackFrom: hours(10) }, (o) => isDue(o)],
      ['due INR', { mode: 'due', asOf: hours(60), lookbackFrom: hours(10), currency: 'INR' }, (o) => o.currency === 'INR' && isDue(o)],
      ['range', { mode: 'range', from: hours(5), to: hours(40) }, (o) => o.createdAt >= hours(5) && o.createdAt < hours(40)],
      [
        'range NGN',
        { mode: 'range', from: hours(0), to: hours(53), currency: 'NGN' },
        (o) => o.currency === 'NGN' && o.createdAt >= hours(0) && o.createdAt < hours(53),
      ],
    ];

    for (const direction of ['payment', 'payout'] as const) {
      it.each(filters)(`${direction}: %s covers every order exactly once`, async (_name, filter, keep) => {
        const expected = made[direction].filter(keep).map((o) => o.id);
        expect(expected.length).toBeGreaterThan(3);
        const seen: string[] = [];
        let after: string | null = null;
        for (;;) {
          const page: CheckedOrderRow[] = await selectOrdersPage(t.db.knex, direction, filter, after, 4);
          if (page.length === 0) break;
          seen.push(...page.map((o) => o.id));
          after = page[page.length - 1].id;
        }
        // Earlier tests' orders sit outside these windows except in 'range' from hours(0): restrict to ours.
        const ours = new Set(made[direction].map((o) => o.id));
        expect(seen.filter((id) => ours.has(id))).toEqual(expected);
        expect(new Set(seen).size).toBe(seen.length);
        expect(await countOrders(t.db.knex, direction, filter)).toBe(seen.length);
      });
    }

    it('ref matches merchant_ref or transaction_ref', async () => {
      const o = made.payout[7];
      for (const ref of [o.merchantRef, o.transactionRef]) {
        expect((await selectOrdersPage(t.db.knex, 'payout', { mode: 'ref', ref }, null, 10)).map((r) => r.id)).toEqual([o.id]);
      }
      expect(await countOrders(t.db.knex, 'payout', { mode: 'ref', ref: o.merchantRef, currency: 'IDR' })).toBe(
        o.currency === 'IDR' ? 1 : 0,
      );
    });
  });

  it('applyCheckResults updates a batch in one statement, leaving ungiven fields alone', async () => {
    const k = t.db.knex;
    const pays = await insertOrders(k, 'payment', [base(), base(), base()]);
    const n = await k.transaction((trx) =>
      applyCheckResults(trx, 'payment', [
        { id: pays[0].id, expected: pays[0], checkedAt: hours(1), nextCheckAt: hours(2) },
        {
          id: pays[1].id,
          expected: pays[1],
          checkedAt: hours(1),
          nextCheckAt: null,
          status: 'Success',
          statusCategory: 'success',
          paidAmount: '12345678901234.56',
          fee: '0.1',
          finalizedAt: hours(1),
          updatedAt: hours(1),
        },
      ]),
    );
    expect(n).toEqual([pays[0].id, pays[1].id]);
    const [a, b, c] = await Promise.all(
      // The whole row (a check's read leaves out the bookkeeping times this checks).
      pays.map(async (p) => (await findOrderById(k, 'payment', p.id))!),
    );
    expect(a).toMatchObject({
      checkCount: 1,
      lastCheckedAt: hours(1),
      nextCheckAt: hours(2),
      status: 'Initiated',
      statusCategory: 'pending',
      paidAmount: null,
      updatedAt: pays[0].updatedAt,
    });
    expect(b).toMatchObject({
      checkCount: 1,
      nextCheckAt: null,
      status: 'Success',
      statusCategory: 'success',
      paidAmount: '12345678901234.56',
      fee: '0.1',
      finalizedAt: hours(1),
      updatedAt: hours(1),
    });
    expect(c).toEqual(pays[2]);

    const [po] = await insertOrders(k, 'payout', [base()]);
    await applyCheckResults(k, 'payout', [
      { id: po.id, expected: po, checkedAt: hours(3), nextCheckAt: hours(4), utr: 'UTR"with,quote\\NULL', status: 'NULL' },
    ]);
    const [po1] = await selectOrdersPage(k, 'payout', { mode: 'ref', ref: po.merchantRef }, null, 1);
    expect(await applyCheckResults(k, 'payout', [{ id: po.id, expected: po1, checkedAt: hours(4), nextCheckAt: hours(5) }])).toEqual([
      po.id,
    ]);
    const po2 = (await findOrderById(k, 'payout', po.id))!;
    expect(po2).toMatchObject({ checkCount: 2, utr: 'UTR"with,quote\\NULL', status: 'NULL', lastCheckedAt: hours(4) });
    await expect(
      applyCheckResults(k, 'payout', [{ id: po.id, expected: po2, checkedAt: hours(1), nextCheckAt: null, paidAmount: '1' }]),
    ).rejects.toThrow();
    await expect(
      applyCheckResults(k, 'payout', [
        { id: po.id, expected: po2, checkedAt: hours(1), nextCheckAt: null },
        { id: po.id, expected: po2, checkedAt: hours(1), nextCheckAt: null },
      ]),
    ).rejects.toThrow(/duplicate/);
  });

  it.each([
    ['status (a confirmed webhook made it final)', { status: 'Success', status_category: 'success' }],
    ['fee (the merchant recorded one)', { fee: '2.50' }],
    ['amount (the merchant corrected it)', { amount: '7.77' }],
    ['check_count (another check was written)', { check_count: 5 }],
  ])('applyCheckResults writes nothing to an order whose %s changed since the check read it', async (_name, change) => {
    const k = t.db.knex;
    const [o] = await insertOrders(k, 'payment', [base()]);
    await k('payment_orders').where({ id: o.id }).update(change);
    const before = await k('payment_orders').where({ id: o.id }).first();
    const written = await applyCheckResults(k, 'payment', [
      { id: o.id, expected: o, checkedAt: hours(1), nextCheckAt: hours(2), status: 'Processing', statusCategory: 'pending' },
    ]);
    expect(written).toEqual([]);
    expect(await k('payment_orders').where({ id: o.id }).first()).toEqual(before);
  });

  // findResumableRun and lastRuns read every run in the database (other its create runs too), so this
  // one gets a database of its own.
  it('runs: create, checkpoint with count deltas, resume, finish, last per job', async () => {
    const own = await createTestDatabase(`repos_runs_${engine}`, { engine });
    try {
      const k = own.db.knex;
      const run = await createRun(k, 'reconcile', { mode: 'due' }, { dryRun: false, now: hours(0) });
      expect(run).toMatchObject({
        job: 'reconcile',
        status: 'running',
        params: { mode: 'due' },
        checkpoint: {},
        counts: {},
        checked: 0,
        dryRun: false,
      });
      await k.transaction((trx) => checkpointRun(trx, run.id, { payment: '10' }, { matched: 3, mismatch: 1 }, 4, hours(1)));
      await checkpointRun(k, run.id, { payout: '7' }, { matched: 2, error: 1 }, 3, hours(2));
      expect(await findResumableRun(k, 'reconcile')).toMatchObject({
        id: run.id,
        checkpoint: { payment: '10', payout: '7' },
        counts: { matched: 5, mismatch: 1, error: 1 },
        checked: 7,
        heartbeatAt: hours(2),
      });
      await finishRun(k, run.id, 'completed', undefined, null, hours(4));
      expect(await findResumableRun(k, 'reconcile')).toBeNull();
      expect(await findRun(k, run.id)).toMatchObject({
        status: 'completed',
        finishedAt: hours(4),
        counts: { matched: 5, mismatch: 1, error: 1 },
      });

      const later = await createRun(k, 'reconcile', {}, { dryRun: true, now: hours(5) });
      await finishRun(k, later.id, 'failed', { matched: 0 }, 'boom', hours(6));
      const snap = await createRun(k, 'snapshot', {}, { dryRun: false, now: hours(1) });
      const last = await lastRuns(k);
      expect(last.map((r) => [r.job, r.id, r.status])).toEqual([
        ['reconcile', later.id, 'failed'],
        ['snapshot', snap.id, 'running'],
      ]);
      expect(last[0]).toMatchObject({ error: 'boom', counts: { matched: 0 }, dryRun: true });
    } finally {
      await own.drop();
    }
  });

  it('items: bulk insert, codes and details round-trip, re-insert is skipped', async () => {
    const k = t.db.knex;
    const run = await createRun(k, 'reconcile', {}, { dryRun: false, now: hours(0) });
    const orders = await insertOrders(
      k,
      'payment',
      Array.from({ length: 600 }, () => base()),
    );
    const items: ReconItemRow[] = orders.map((o, i) => ({
      runId: run.id,
      direction: 'payment',
      orderId: o.id,
      merchantRef: o.merchantRef,
      transactionRef: o.transactionRef,
      currency: o.currency,
      method: o.method,
      checkedAt: hours(1),
      localStatus: o.status,
      localCategory: o.statusCategory,
      localAmount: o.amount,
      localPaidAmount: null,
      localFee: null,
      localUtr: null,
      providerStatus: 'Success',
      providerCategory: 'success',
      providerCurrency: o.currency,
      providerAmount: '12345678901234.56',
      providerPaidAmount: '0.1',
      providerFee: '0',
      providerUtr: null,
      verdict: i % 2 ? 'mismatch' : 'matched',
      codes: i % 2 ? ['AMOUNT', 'FEE'] : [],
      details: i % 2 ? [{ code: 'AMOUNT', local: o.amount, provider: '12345678901234.56' }] : [],
      reason: '',
    }));
    expect(await k.transaction((trx) => insertItems(trx, items))).toBe(600);
    expect(await insertItems(k, items.slice(0, 10))).toBe(0);
    const back = await selectItemsByRun(k, run.id);
    expect(back).toHaveLength(600);
    expect(back[1]).toMatchObject({ ...items[1], id: expect.any(String) });
    expect(back[0].codes).toEqual([]);
    expect(back[0].details).toEqual([]);
  });
});

function base(): NewOrder {
  return { merchantRef: randomUUID(), transactionRef: randomUUID(), currency: 'INR', method: 'UPI', amount: '100.50' };
}
