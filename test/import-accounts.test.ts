import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOrders } from '../src/import/import.ts';
import { runImport } from '../src/commands/import.ts';
import { loadConfig } from '../src/config/config.ts';
import { createStatusMapper } from '../src/domain/status.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

// The import takes each order's account from its `account` column or --account; the provider's
// transactionRef is one order of one account, so a ref another account holds is refused, naming it.

const statusOf = createStatusMapper();
const HEADER = 'merchant_ref,transaction_ref,currency,method,amount,status,created_at';
const uuid = (n: number, tag = 'a') => `0000000${tag}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const row = (m: number, t: number, account?: string) =>
  `${uuid(m, 'a')},${uuid(t, 'b')},INR,UPI,10.00,Pending,2026-11-20T10:00:00Z${account === undefined ? '' : `,${account}`}`;
const csv = (lines: string[], withAccount = false) => Readable.from([`${HEADER}${withAccount ? ',account' : ''}\n${lines.join('\n')}\n`]);

describe.each(availableEngines)('import into accounts on %s', (engine) => {
  let t: TestDatabase;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-import-accounts-'));
  const accountsFile = path.join(dir, 'accounts.json');
  fs.writeFileSync(
    accountsFile,
    JSON.stringify({
      accounts: [
        { id: 'in-main', merchantId: 'M-IN', secret: { env: 'S' } },
        { id: 'ng-brand', merchantId: 'M-NG', secret: { env: 'S' } },
      ],
    }),
  );
  beforeAll(async () => {
    t = await createTestDatabase(`import_accounts_${engine}`, { engine });
  });
  afterAll(async () => {
    await t?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const accounts = { ids: ['in-main', 'ng-brand'] };
  const accountOf = async (m: number) =>
    (await t.db.knex('payment_orders').where('merchant_ref', uuid(m, 'a')).first('account_id'))?.account_id as string | undefined;

  it('stores each row under its account column, or the fallback', async () => {
    const r = await importOrders(t.db.knex, csv([row(1, 1, 'in-main'), row(2, 2, 'ng-brand'), row(3, 3, '')], true), {
      kind: 'payment',
      statusOf,
      accounts: { ...accounts, fallback: 'ng-brand' },
    });
    expect(r.rejected).toEqual([]);
    expect([await accountOf(1), await accountOf(2), await accountOf(3)]).toEqual(['in-main', 'ng-brand', 'ng-brand']);
  });

  it('refuses a row naming no configured account, or none with several configured and no fallback', async () => {
    const r = await importOrders(t.db.knex, csv([row(10, 10, 'gh-x'), row(11, 11, '')], true), { kind: 'payment', statusOf, accounts });
    expect(r.inserted).toBe(0);
    expect(r.rejected).toEqual([
      { line: 2, reason: 'account: "gh-x" is not a configured account (in-main, ng-brand)' },
      { line: 3, reason: 'account: required, 2 accounts are configured (in-main, ng-brand); give the column or --account' },
    ]);
  });

  it('refuses a transactionRef another account holds, naming that account', async () => {
    const r = await importOrders(t.db.knex, csv([row(20, 1, 'ng-brand'), row(21, 1, 'in-main')], true), {
      kind: 'payment',
      statusOf,
      accounts,
    });
    expect(r.rejected).toEqual([
      { line: 2, reason: `transaction_ref: ${uuid(1, 'b')} belongs to account in-main, not ng-brand` },
      { line: 3, reason: `transaction_ref: ${uuid(1, 'b')} duplicates line 2` },
    ]);
  });

  it('refuses a merchantRef another account holds, naming it and the switch that allows it (unique across accounts by default)', async () => {
    const r = await importOrders(t.db.knex, csv([row(1, 30, 'ng-brand')], true), { kind: 'payment', statusOf, accounts });
    expect(r.rejected).toEqual([
      {
        line: 2,
        reason:
          `merchant_ref: ${uuid(1, 'a')} is already account in-main's (a merchant ref is unique across accounts in this database; ` +
          'to make it unique per account, run `payrecon accounts refs-per-account` (docs/guides/accounts.md))',
      },
    ]);
  });

  // The command opens its own connection; PGlite allows one per directory, so on Postgres only.
  it.runIf(engine === 'postgres')(
    'payrecon import --account: the account of rows without the column; a wrong id refused naming the ids',
    async () => {
      const config = { ...t.config, ACCOUNTS_FILE: loadConfig({ ACCOUNTS_FILE: accountsFile, S: 'x' }).ACCOUNTS_FILE };
      const file = path.join(dir, 'orders.csv');
      fs.writeFileSync(file, `${HEADER}\n${row(40, 40)}\n`);
      const sink = { write: () => true } as unknown as NodeJS.WritableStream;
      await expect(runImport(file, { kind: 'payment', account: 'gh-x' }, config, sink)).rejects.toThrow(
        '--account "gh-x": no such account; configured: in-main, ng-brand',
      );
      const without = await runImport(file, { kind: 'payment' }, config, sink);
      expect(without.rejected.map((x) => x.reason)).toEqual([
        'account: required, 2 accounts are configured (in-main, ng-brand); give the column or --account',
      ]);
      const r = await runImport(file, { kind: 'payment', account: 'ng-brand' }, config, sink);
      expect(r.inserted).toBe(1);
      expect(await accountOf(40)).toBe('ng-brand');
    },
  );

  it('with one account, rows are the account "default" as before', async () => {
    const r = await importOrders(t.db.knex, csv([row(50, 50)]), {
      kind: 'payment',
      statusOf,
      accounts: { ids: ['default'], fallback: 'default' },
    });
    expect(r.inserted).toBe(1);
    expect(await accountOf(50)).toBe('default');
  });
});
