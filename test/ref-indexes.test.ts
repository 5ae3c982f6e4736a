/**
 * Issue 30, sql/035: one index per ref serves both uniqueness and the lower-case half of the ref
 * search; the lower() index keeps only refs that are not lower case. The search must find exactly
 * what `lower(ref) LIKE piece%` finds, and a duplicate ref must still be refused under the old name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrders } from '../src/db/orders.ts';
import { ordersByRefPrefix } from '../src/db/order-lookup.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const REFS = [
  ['0b6f1b52-4a0e-4c39-9d55-0b3f0e0d2aaa', 'TX-LOWER-UPPER'],
  ['ORD-Mixed-0001', '7d0c6a39-0f3e-4a55-8d0e-2b8c3a1faaaa'],
  ['ord-mixed-0002', 'tx-lower-2'],
  ['ORD-MIXED-0003', 'Tx_Under%Score'],
  ['Ärger-01', 'äRGER-02'],
] as const;

describe.each(availableEngines)('ref indexes on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`ref_indexes_${engine}`, { engine });
    await insertOrders(
      t.db.knex,
      'payment',
      REFS.map(([m, tx]) => ({ merchantRef: m, transactionRef: tx, currency: 'INR', method: 'UPI', amount: '1' })),
    );
    await insertOrders(t.db.knex, 'payout', [
      { merchantRef: 'PO-Upper-1', transactionRef: 'po-lower-1', currency: 'INR', method: 'IMPS', amount: '2' },
    ]);
  });
  afterAll(() => t?.drop());

  it('finds what lower(ref) LIKE piece% finds, whatever the case of the ref and of the piece', async () => {
    const k = t.db.knex;
    const pieces = ['ord-mixed', 'ORD-MIXED-000', 'tx-lower', 'TX_UNDER%', 'tx_under%s', '0B6F1B52', 'ärger', 'ÄRGER-0', 'po-', 'nothing'];
    for (const piece of pieces) {
      const pattern = `${piece.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const expected = (
        await k.raw(
          `SELECT merchant_ref FROM payment_orders WHERE lower(merchant_ref) LIKE ? OR lower(transaction_ref) LIKE ?
           UNION ALL SELECT merchant_ref FROM payout_orders WHERE lower(merchant_ref) LIKE ? OR lower(transaction_ref) LIKE ?`,
          [pattern, pattern, pattern, pattern],
        )
      ).rows.map((r: { merchant_ref: string }) => r.merchant_ref);
      const found = (await ordersByRefPrefix(k, piece, 50)).map((r) => r.merchantRef);
      expect(found.sort(), piece).toEqual(expected.sort());
    }
    // The cases above are not vacuous: upper-, mixed- and lower-case refs are each found.
    expect((await ordersByRefPrefix(k, 'ord-mixed', 50)).map((r) => r.merchantRef).sort()).toEqual([
      'ORD-MIXED-0003',
      'ORD-Mixed-0001',
      'ord-mixed-0002',
    ]);
    expect((await ordersByRefPrefix(k, 'PO-', 50)).map((r) => r.direction)).toEqual(['payout']);
  });

  it('a ref already there is refused, by the index of the old constraint name', async () => {
    for (const [column, other] of [
      ['merchant_ref', 'transaction_ref'],
      ['transaction_ref', 'merchant_ref'],
    ] as const) {
      const row = { currency: 'INR', method: 'UPI', amount: '1', [column]: REFS[2][column === 'merchant_ref' ? 0 : 1], [other]: 'fresh' };
      const err = await t.db
        .knex('payment_orders')
        .insert(row)
        .then(
          () => null,
          (e: { code?: string; constraint?: string }) => e,
        );
      expect(err?.code).toBe('23505');
      expect(err?.constraint).toBe(`payment_orders_${column}_key`);
    }
  });

  it('a search past its limit keeps the lowest ids, in number order (ids 9 and 10 are not sorted as text)', async () => {
    const rows = await insertOrders(
      t.db.knex,
      'payment',
      Array.from({ length: 12 }, (_, i) => ({
        merchantRef: `seq-${i}`,
        transactionRef: `seq-tx-${i}`,
        currency: 'INR',
        method: 'UPI',
        amount: '1',
      })),
    );
    const lowest = rows.map((r) => BigInt(r.id)).sort((a, b) => (a < b ? -1 : 1));
    const found = await ordersByRefPrefix(t.db.knex, 'seq-', 8);
    expect(found.map((r) => BigInt(r.id))).toEqual(lowest.slice(0, 8));
  });

  it('the lower() indexes hold only the refs that are not lower case', async () => {
    // Read through the index's own predicate: an order update writes no entry there for a lower-case ref.
    const { rows } = await t.db.knex.raw(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('payment_orders', 'payout_orders') AND indexname LIKE '%_prefix' ORDER BY indexname`,
    );
    expect(rows).toHaveLength(4);
    for (const r of rows as Array<{ indexdef: string }>) expect(r.indexdef).toMatch(/WHERE \(\w+_ref <> lower\(\w+_ref\)\)/);
  });
});
