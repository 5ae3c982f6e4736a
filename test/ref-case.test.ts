/**
 * Issue 14, item 12: UUID refs are stored in one canonical case (lower) and compared that way
 * everywhere: import, reconcile --ref, webhooks, the provider's answers; existing rows are canonicalized.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOrders } from '../src/import/import.ts';
import { insertOrders, selectOrdersPage } from '../src/db/orders.ts';
import { findOrderByTransactionRef } from '../src/db/webhook-events.ts';
import { listMigrationFiles, readMigrationFile } from '../src/db/sql-files.ts';
import { createStatusMapper } from '../src/domain/status.ts';
import { compareOrder } from '../src/recon/compare.ts';
import { defaultPolicy } from '../src/recon/policy.ts';
import { parsePaymentNotification } from '../src/webhook/payload.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const M = '0b6f1b52-4a0e-4c39-9d55-0b3f0e0d2aaa';
const T = '7d0c6a39-0f3e-4a55-8d0e-2b8c3a1faaaa';
const csv = (rows: string[]) =>
  Readable.from([`merchant_ref,transaction_ref,currency,method,amount,paid_amount,fee,status,created_at\n${rows.join('\n')}\n`]);
const row = (m: string, t: string) => `${m},${t},INR,UPI,100.50,,,Initiated,2024-03-01T10:15:00+05:30`;

describe.each(availableEngines)('ref case on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`ref_case_${engine}`, { engine });
    await insertOrders(t.db.knex, 'payment', [{ merchantRef: M, transactionRef: T, currency: 'INR', method: 'UPI', amount: '100.5' }]);
  });
  afterAll(() => t?.drop());

  it('import: an upper-case copy of an existing order is refused as already there, not inserted as a second order', async () => {
    const r = await importOrders(t.db.knex, csv([row(M.toUpperCase(), T.toUpperCase())]), {
      kind: 'payment',
      statusOf: createStatusMapper(),
    });
    expect(r.inserted).toBe(0);
    expect(r.rejected[0].reason).toMatch(/is already in the database/);
    const [{ n }] = await t.db.knex('payment_orders').whereRaw('lower(merchant_ref) = ?', [M]).count<{ n: string }[]>('* as n');
    expect(Number(n)).toBe(1);
  });

  it('import and every other writer store a new upper-case UUID in lower case; other refs are kept as written', async () => {
    const m2 = 'AAAAAAAA-4A0E-4C39-9D55-0B3F0E0D2A01';
    const t2 = 'BBBBBBBB-0F3E-4A55-8D0E-2B8C3A1F0001';
    const r = await importOrders(t.db.knex, csv([row(m2, t2)]), { kind: 'payment', statusOf: createStatusMapper() });
    expect(r.inserted).toBe(1);
    const stored = await t.db.knex('payment_orders').where({ merchant_ref: m2.toLowerCase() }).first();
    expect(stored.transaction_ref).toBe(t2.toLowerCase());
    // The merchant's own systems writing the table directly.
    await t.db.knex.raw(
      `INSERT INTO payout_orders (merchant_ref, transaction_ref, currency, method, amount) VALUES ('CCCCCCCC-4A0E-4C39-9D55-0B3F0E0D2A01', 'MERCHANT-REF-X', 'INR', 'IFSC', 1)`,
    );
    const payout = await t.db.knex('payout_orders').where({ transaction_ref: 'MERCHANT-REF-X' }).first();
    expect(payout.merchant_ref).toBe('cccccccc-4a0e-4c39-9d55-0b3f0e0d2a01');
  });

  it('reconcile --ref, webhook lookups and parsed notifications find the order whatever the case', async () => {
    const k = t.db.knex;
    for (const ref of [M.toUpperCase(), T.toUpperCase()]) {
      expect((await selectOrdersPage(k, 'payment', { mode: 'ref', ref }, null, 10)).map((o) => o.merchantRef)).toEqual([M]);
    }
    expect((await k.transaction((trx) => findOrderByTransactionRef(trx, 'payment', T.toUpperCase())))?.merchantRef).toBe(M);
    const n = parsePaymentNotification(
      JSON.stringify({
        transactionRef: T.toUpperCase(),
        merchantRef: M.toUpperCase(),
        currency: 'INR',
        method: 'UPI',
        amount: '100.50',
        paidAmount: '100.50',
        fee: '1',
        status: 'Success',
      }),
    );
    expect({ t: n.transactionRef, m: n.merchantRef }).toEqual({ t: T, m: M });
  });

  it('a provider answering with an upper-case merchantRef is the same order (no MERCHANT_REF)', () => {
    const local = {
      direction: 'payment' as const,
      merchantRef: M,
      transactionRef: T,
      currency: 'INR' as const,
      method: 'UPI',
      amount: '100.5',
      paidAmount: null,
      fee: null,
      utr: null,
      bankCode: null,
      status: 'Initiated',
      category: 'pending' as const,
      createdAt: new Date('2024-03-01T00:00:00Z'),
      checkCount: 0,
    };
    const order = {
      merchantRef: M.toUpperCase(),
      transactionRef: T.toUpperCase(),
      currency: 'INR',
      method: 'UPI',
      amount: '100.50',
      paidAmount: '100.5',
      fee: '1',
    };
    const r = compareOrder(
      local,
      { kind: 'found', order: { ...order, status: 'Success', category: 'success' } },
      defaultPolicy(),
      new Date('2024-03-01T01:00:00Z'),
    );
    expect(r.codes).toEqual([]);
    expect(r.verdict).toBe('resolved');
  });

  it('the migration canonicalizes rows stored before it, leaving a pair that would collide for a person', async () => {
    const k = t.db.knex;
    const file = listMigrationFiles().find((f) => /canonical_refs/.test(f))!;
    expect(file).toBeDefined();
    const legacy = [
      ['DDDDDDDD-4A0E-4C39-9D55-0B3F0E0D2A01', 'EEEEEEEE-0F3E-4A55-8D0E-2B8C3A1F0001'],
      // An upper-case duplicate of the first order, imported twice under the old rule.
      [M.toUpperCase(), 'FFFFFFFF-0F3E-4A55-8D0E-2B8C3A1F0001'],
    ];
    await k.raw('ALTER TABLE payment_orders DISABLE TRIGGER payment_orders_canonical_refs');
    for (const [m, tr] of legacy) {
      await k.raw(`INSERT INTO payment_orders (merchant_ref, transaction_ref, currency, method, amount) VALUES (?, ?, 'INR', 'UPI', 1)`, [
        m,
        tr,
      ]);
    }
    await k.raw('ALTER TABLE payment_orders ENABLE TRIGGER payment_orders_canonical_refs');
    // As the migrator runs a file: a script through the engine, in the test database's schema.
    const sql = readMigrationFile(file);
    await t.db.engine.runScript(t.db.knex, `SET search_path TO ${t.db.schema}; ${sql}`);
    expect(await k('payment_orders').where({ merchant_ref: legacy[0][0].toLowerCase() }).first()).toMatchObject({
      transaction_ref: legacy[0][1].toLowerCase(),
    });
    // The collision stays as it was (merchant_ref), its own transaction_ref is canonical.
    expect(await k('payment_orders').where({ merchant_ref: M.toUpperCase() }).first()).toMatchObject({
      transaction_ref: legacy[1][1].toLowerCase(),
    });
  });
});
