/**
 * Issue 35, item 5: the merchant's systems write payment_orders and payout_orders (the database
 * contract) from their own sessions, whose search_path does not include payrecon's schema. Every
 * trigger those writes fire must work there: insert, upsert by ref, update of a ref.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { quoteIdent } from '../src/db/ident.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

/** The tables the contract (docs/reference/database-contract.md) lists as written by the merchant. */
const MERCHANT_TABLES = ['payment_orders', 'payout_orders'] as const;

describe.each(availableEngines)('merchant writes from a session without the schema on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`h35_merchant_writes_${engine}`, { engine });
  });
  afterAll(() => t?.drop());

  /** Runs `fn` in a transaction whose search_path is a typical merchant session's, not payrecon's. */
  const asMerchant = <T>(fn: (tx: Knex.Transaction, table: (name: string) => string) => Promise<T>) =>
    t.db.knex.transaction(async (tx) => {
      await tx.raw(`SET LOCAL search_path TO "$user", public`);
      return fn(tx, (name) => `${quoteIdent(t.db.schema)}.${name}`);
    });

  it.each(MERCHANT_TABLES)('%s: insert, upsert on the ref and a ref update store canonical refs', async (table) => {
    const n = table === 'payment_orders' ? 'a' : 'b';
    const m = `0b6f1b52-4a0e-4c39-9d55-0b3f0e0d2${n}01`;
    const tr = `7d0c6a39-0f3e-4a55-8d0e-2b8c3a1f${n}001`;
    const stored = await asMerchant(async (tx, q) => {
      await tx.raw(`INSERT INTO ${q(table)} (merchant_ref, transaction_ref, currency, method, amount) VALUES (?, ?, 'INR', 'UPI', 10)`, [
        m.toUpperCase(),
        tr.toUpperCase(),
      ]);
      await tx.raw(
        `INSERT INTO ${q(table)} (merchant_ref, transaction_ref, currency, method, amount) VALUES (?, ?, 'INR', 'UPI', 12)
           ON CONFLICT (merchant_ref) DO UPDATE SET amount = excluded.amount`,
        [m, tr],
      );
      await tx.raw(`UPDATE ${q(table)} SET transaction_ref = ? WHERE merchant_ref = ?`, [`${tr.slice(0, -1)}F`.toUpperCase(), m]);
      const res = await tx.raw(`SELECT merchant_ref, transaction_ref, amount::text AS amount FROM ${q(table)} WHERE merchant_ref = ?`, [m]);
      return (res.rows ?? res) as Array<Record<string, string>>;
    });
    expect(stored).toEqual([{ merchant_ref: m, transaction_ref: `${tr.slice(0, -1)}f`, amount: '12' }]);
  });
});
