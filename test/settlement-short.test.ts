// The roll-forward's window sums carry the payments paid below the merchant's amount (issue 37's
// short_payment entry), over exactly the orders the payments entry counts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { settlementWindow } from '../src/db/settlement.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('h37_settlement_short');
  await t.db.knex.raw(`
    INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, provider_paid_amount, provider_fee,
      status, status_category, created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
      (1, 'P-FULL', 'T-1', 'IDR', 'VA', 1000, 1000, 10, 1000, 10, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 1000, '2024-05-01T09:00:00Z'),
      (2, 'P-SHORT', 'T-2', 'IDR', 'VA', 1000, 700, 10, 700.25, 10, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 1000, '2024-05-01T09:00:00Z'),
      (3, 'P-OVER', 'T-3', 'IDR', 'VA', 500, 600, 10, 600, 10, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 500, '2024-05-01T09:00:00Z'),
      (4, 'P-LATER', 'T-4', 'IDR', 'VA', 1000, 1, 10, 1, 10, 'Success', 'success', '2024-05-02T08:00:00Z', '2024-05-02T09:00:00Z', 'success', 1000, '2024-05-02T09:00:00Z');`);
});
afterAll(async () => {
  await t?.drop();
});

const window = (from: string, to: string) => settlementWindow(t.db.knex, 'IDR', { from, to: from }, { from: to, to });

it('Σ (amount − paid) over the window’s payments paid short, and how many; an overpayment or another window’s order not', async () => {
  const w = await window('2024-05-01T00:00:00Z', '2024-05-01T23:00:00Z');
  expect(w.sums.payments).toEqual({ paidAmount: '2300.25', fee: '30', count: 3, short: { total: '299.75', count: 1 } });
});

it('no short payment in the window: no short figure', async () => {
  const w = await window('2024-05-03T00:00:00Z', '2024-05-03T23:00:00Z');
  expect(w.sums.payments).toEqual({ paidAmount: null, fee: null, count: 0 });
  expect('short' in w.sums.payments).toBe(false);
});
