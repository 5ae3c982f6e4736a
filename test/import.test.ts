import fs from 'node:fs';
import { Readable, PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connect.ts';
import { importOrders } from '../src/import/import.ts';
import { ImportFormatError } from '../src/import/import-csv.ts';
import { validateOrderRow } from '../src/import/import-row.ts';
import { insertOrders, selectOrdersPage } from '../src/db/orders.ts';
import { NotMigratedError } from '../src/db/migrate.ts';
import { createStatusMapper } from '../src/domain/status.ts';
import { readRecord } from '../src/provider/parse.ts';
import { runImport } from '../src/commands/import.ts';
import { runMigrate } from '../src/commands/migrate.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const PAYMENTS = new URL('./fixtures/import-payments.csv', import.meta.url).pathname;
const PAYOUTS = new URL('./fixtures/import-payouts.csv', import.meta.url).pathname;
const statusOf = createStatusMapper();
const IN_DB = '99999999-4a0e-4c39-9d55-0b3f0e0d2a15';

const EXPECTED_REJECTIONS: [number, RegExp][] = [
  [4, /^merchant_ref: "not-a-uuid" is not a UUID$/],
  [5, /^currency: "USD" is not one of INR, NGN, IDR \(any case\)$/],
  [6, /^amount: "-5.00" is negative$/],
  [7, /^amount: "12a" is not a decimal number/],
  [8, /^amount: "1.005" has more than 2 decimals$/],
  [9, /^merchant_ref: 0b6f1b52-4a0e-4c39-9d55-0b3f0e0d2a01 duplicates line 2$/],
  [10, /^method: starts with "=" \(would run as a spreadsheet formula\)/],
  [13, /^created_at: "2024-03-01T10:15:00" is not an ISO-8601 date-time with an offset/],
  [14, /^status: starts with "@"/],
  [15, /^expected 9 fields, got 5$/],
  [16, new RegExp(`^merchant_ref: ${IN_DB} is already in the database$`)],
  [17, /^created_at: "2024-02-30T10:15:00\+05:30" is not an ISO-8601/],
];

describe.each(availableEngines)('importOrders on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`import_${engine}`, { engine });
    await insertOrders(t.db.knex, 'payment', [
      { merchantRef: IN_DB, transactionRef: 'e0e0e0e0-0000-4000-8000-000000000000', currency: 'INR', method: 'UPI', amount: '1' },
    ]);
  });
  afterAll(() => t?.drop());

  it('inserts the good rows and reports each bad row with its line number', async () => {
    const r = await importOrders(t.db.knex, fs.createReadStream(PAYMENTS), { kind: 'payment', statusOf, batchSize: 2 });
    expect(r.rows).toBe(16);
    expect(r.inserted).toBe(4);
    expect(r.rejected.map((x) => x.line)).toEqual(EXPECTED_REJECTIONS.map(([line]) => line));
    r.rejected.forEach((x, i) => expect(x.reason).toMatch(EXPECTED_REJECTIONS[i][1]));

    const big = (await selectOrdersPage(t.db.knex, 'payment', { mode: 'ref', ref: '0b6f1b52-4a0e-4c39-9d55-0b3f0e0d2a11' }, null, 1))[0];
    expect(big).toMatchObject({
      amount: '12345678901234.56',
      paidAmount: '0.1',
      fee: '0.1',
      status: 'Success',
      statusCategory: 'success',
      createdAt: new Date('2024-03-01T18:29:59.123Z'),
    });
    expect(big.finalizedAt).toEqual(big.createdAt);
    const odd = (await selectOrdersPage(t.db.knex, 'payment', { mode: 'ref', ref: '0b6f1b52-4a0e-4c39-9d55-0b3f0e0d2a17' }, null, 1))[0];
    expect(odd).toMatchObject({ amount: '0', statusCategory: 'unknown', finalizedAt: null });

    // Importing the same file again inserts nothing and crashes on nothing.
    const again = await importOrders(t.db.knex, fs.createReadStream(PAYMENTS), { kind: 'payment', statusOf });
    expect(again.inserted).toBe(0);
    expect(again.rejected).toHaveLength(16);
  });

  it('imports payouts with bank_code and utr', async () => {
    const r = await importOrders(t.db.knex, fs.createReadStream(PAYOUTS), { kind: 'payout', statusOf });
    expect(r).toEqual({ kind: 'payout', rows: 2, inserted: 2, rejected: [], unknownStatuses: {} });
    const [o] = await selectOrdersPage(t.db.knex, 'payout', { mode: 'ref', ref: '5c1e7f10-3b1d-4a9a-8d6e-7a2b9c0d1e01' }, null, 1);
    expect(o).toMatchObject({ amount: '1000', fee: '5.9', bankCode: 'HDFC0001', utr: 'UTR123456789', statusCategory: 'success' });
  });

  it('refuses a bad header before touching anything', async () => {
    const csv = 'merchant_ref,transaction_ref,currency,method,amount,status,created_at,bank_code\n';
    await expect(importOrders(t.db.knex, Readable.from([csv]), { kind: 'payment', statusOf })).rejects.toThrow(ImportFormatError);
    await expect(importOrders(t.db.knex, Readable.from([csv]), { kind: 'payment', statusOf })).rejects.toThrow(
      /unknown column\(s\) for payments: bank_code/,
    );
    await expect(importOrders(t.db.knex, Readable.from(['']), { kind: 'payment', statusOf })).rejects.toThrow(/empty/);
  });

  it('reports an unreadable record instead of failing the file', async () => {
    const csv = [
      'merchant_ref,transaction_ref,currency,method,amount,status,created_at',
      'c0000000-0000-4000-8000-000000000001,c0000000-0000-4000-8000-000000000002,INR,UPI,1,Initiated,2024-03-01T00:00:00Z',
      'c0000000-0000-4000-8000-000000000003,c0000000-0000-4000-8000-000000000004,INR,"UPI,1,Initiated,2024-03-01T00:00:00Z',
    ].join('\n');
    const r = await importOrders(t.db.knex, Readable.from([csv]), { kind: 'payment', statusOf });
    expect(r.inserted).toBe(1);
    expect(r.rejected).toEqual([{ line: 3, reason: expect.stringMatching(/^unreadable CSV: Quote Not Closed/) }]);
  });
});

describe('validateOrderRow', () => {
  const good = {
    merchant_ref: 'c0000000-0000-4000-8000-000000000001',
    transaction_ref: 'c0000000-0000-4000-8000-000000000002',
    currency: 'IDR',
    method: 'QRIS',
    amount: '1',
    status: 'Initiated',
    created_at: '2024-03-01T00:00:00+0700',
  };
  it.each([
    ['method', 'QR\u0007IS', /control character/],
    ['method', 'QR\u0085IS', /control character/],
    ['status', '+1', /spreadsheet formula/],
    ['status', '-1', /spreadsheet formula/],
    ['status', '', /status: required/],
    ['amount', '1e5', /not a decimal number/],
    ['amount', '', /amount: required/],
    ['amount', ' 1', /not a decimal number/],
    ['fee', '0.001', /more than 2 decimals/],
    ['currency', 'usd', /not one of/],
    ['created_at', '2024-03-01', /ISO-8601/],
    ['created_at', 'yesterday', /ISO-8601/],
  ])('%s = %j is rejected', (field, value, reason) => {
    const r = validateOrderRow('payment', { ...good, [field]: value }, { statusOf });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
  it.each([
    ['+25:00', false],
    ['-13:00', false],
    ['+14:30', false],
    ['+05:60', false],
    ['+9999', false],
    ['+14:00', true],
    ['-12:00', true],
    ['+05:45', true],
    ['+0700', true],
    ['Z', true],
  ])('created_at with offset %s: accepted %s (real zones run from -12:00 to +14:00)', (offset, accepted) => {
    const r = validateOrderRow('payment', { ...good, created_at: `2024-03-01T10:15:00${offset}` }, { statusOf });
    expect(r.ok).toBe(accepted);
    if (!r.ok) expect(r.reason).toMatch(/^created_at: .* offset between -12:00 and \+14:00/);
  });

  // The import and the provider's answers share one set of bounds (money/bounds.ts): an order
  // imported with an amount its provider answer could never carry would only ever be an error.
  it.each(['99999999999999999.99', '1000000000000000', '999999999999999.99', '0.01', '123456789012345'])(
    'amount %s: the import accepts it exactly when the provider parser does',
    (value) => {
      const ctx = { operation: 'paymentFetch' as const, httpStatus: 200, secrets: [] };
      const provider = (() => {
        try {
          readRecord({ currency: 'INR', amount: value }, { currency: 'string', amount: 'amount' }, 'data', ctx);
          return true;
        } catch {
          return false;
        }
      })();
      const r = validateOrderRow('payment', { ...good, currency: 'INR', amount: value }, { statusOf });
      expect(r.ok).toBe(provider);
      if (!r.ok) expect(r.reason).toMatch(/^amount: .* at most 15 digits before the point/);
    },
  );

  it('names every problem of a row, not only the first', () => {
    const r = validateOrderRow(
      'payment',
      { ...good, merchant_ref: 'x', currency: 'USD', amount: '-5', created_at: 'yesterday' },
      { statusOf },
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      const problems = r.reason.split('; ');
      expect(problems).toHaveLength(4);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^currency: "USD" is not one of/),
          expect.stringMatching(/^created_at: "yesterday" is not an ISO-8601/),
          expect.stringMatching(/^merchant_ref: "x" is not a UUID/),
          expect.stringMatching(/^amount: "-5" is negative/),
        ]),
      );
    }
  });
  it('accepts a currency in any case and stores it upper case, as --currency does', () => {
    expect(validateOrderRow('payment', { ...good, currency: 'idr' }, { statusOf })).toMatchObject({ ok: true, order: { currency: 'IDR' } });
  });
  it('accepts a valid row and honours maxDecimals', () => {
    expect(validateOrderRow('payout', good, { statusOf })).toMatchObject({ ok: true, order: { amount: '1', bankCode: null, utr: null } });
    expect(validateOrderRow('payment', { ...good, amount: '1.234' }, { statusOf, maxDecimals: 3 })).toMatchObject({
      ok: true,
      order: { amount: '1.234' },
    });
  });
});

describe('payrecon migrate and import commands', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('import_cmd', { migrate: false });
    // The commands open their own connection; PGlite allows one process per directory.
    await t.db.close();
  });
  afterAll(() => t?.drop());

  const capture = () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => (text += c));
    return { out, text: () => text };
  };

  it('import refuses an unmigrated database; migrate applies, then reports up to date', async () => {
    await expect(runImport(PAYOUTS, { kind: 'payout' }, t.config)).rejects.toThrow(NotMigratedError);
    await expect(runImport(PAYOUTS, { kind: 'payout' }, t.config)).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringMatching(/run `payrecon migrate`/),
    });
    const first = capture();
    await runMigrate({}, t.config, first.out);
    expect(first.text()).toMatch(/^schema payrecon: applied \d+\n {2}001_orders_and_runs\.sql\n/);
    const second = capture();
    await runMigrate({ json: true }, t.config, second.out);
    expect(JSON.parse(second.text())).toEqual({ schema: 'payrecon', engine: t.engine, applied: [] });
  });

  it('import prints every rejected line and the counts', async () => {
    const c = capture();
    const r = await runImport(PAYMENTS, { kind: 'payment' }, t.config, c.out);
    expect(r.rejected).toHaveLength(EXPECTED_REJECTIONS.length - 1); // IN_DB is not in this database
    const text = c.text();
    expect(text).toContain(`${PAYMENTS}: 16 payment rows read, 5 inserted, 11 rejected\nrejected:\n`);
    expect(text).toContain('  line 4: merchant_ref: "not-a-uuid" is not a UUID\n');
    expect(text).toContain('  line 9: merchant_ref: 0b6f1b52-4a0e-4c39-9d55-0b3f0e0d2a01 duplicates line 2\n');
    expect(text).not.toContain('line 16:');
    const db = await openDatabase(t.config);
    try {
      const [{ n }] = await db.knex('payment_orders').count('* as n');
      expect(n).toBe('5');
    } finally {
      await db.close();
    }
  });

  it('import of a missing file fails before opening the database, as bad input (exit 3)', async () => {
    const err = await runImport('/nonexistent/orders.csv', { kind: 'payment' }, t.config).catch((e: unknown) => e);
    expect((err as Error).message).toBe('/nonexistent/orders.csv: no such file');
    expect((err as { exitCode?: number }).exitCode).toBe(3);
  });
});
