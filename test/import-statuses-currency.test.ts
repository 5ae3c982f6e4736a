import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { selectOrdersPage } from '../src/db/orders.ts';

const HEADER = 'merchant_ref,transaction_ref,currency,method,amount,status,created_at';
const row = (n: number, currency: string, status: string) =>
  `0c000000-0000-4000-8000-00000000000${n},0d000000-0000-4000-8000-00000000000${n},${currency},UPI,10.00,${status},2026-03-01T10:00:00Z`;

// The command runs as its own process on the test database: a server, not one process's PGlite.
describe.skipIf(requiresServer('payrecon import runs as its own process on the test database'))('import statuses and currency case', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    t = await createTestDatabase('import_statuses');
    env = { DATABASE_URL: t.url!, LOG_LEVEL: 'warn' };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-import-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await t?.drop();
  });

  it('warns with the count of rows whose status it does not know, lists the known strings, and accepts lower-case currency', async () => {
    const file = path.join(dir, 'payments.csv');
    fs.writeFileSync(
      file,
      [HEADER, row(1, 'inr', 'Paid'), row(2, 'Ngn', 'Paid'), row(3, 'IDR', 'Settled'), row(4, 'INR', 'success'), ''].join('\n'),
    );
    const res = await runCli(['import', file, '--kind', 'payment'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${file}: 4 payment rows read, 4 inserted, 0 rejected\n`);
    expect(res.stderr).toContain(
      'warning: 3 row(s) have a status payrecon does not know ("Paid" ×2, "Settled" ×1); they are stored as "unknown" and reconcile will report them.',
    );
    expect(res.stderr).toContain('known statuses (any case): initiated, pending, processing, created, success, successful, completed');
    expect(res.stderr).toContain('PROVIDER_STATUS_MAP="Paid=success"');
    const [first] = await selectOrdersPage(t.db.knex, 'payment', { mode: 'ref', ref: '0c000000-0000-4000-8000-000000000001' }, null, 1);
    expect(first).toMatchObject({ currency: 'INR', statusCategory: 'unknown' });
    const [second] = await selectOrdersPage(t.db.knex, 'payment', { mode: 'ref', ref: '0c000000-0000-4000-8000-000000000002' }, null, 1);
    expect(second.currency).toBe('NGN');
  });

  it('counts unknown statuses in --json and says nothing when every status is known', async () => {
    const file = path.join(dir, 'more.csv');
    fs.writeFileSync(file, [HEADER, row(5, 'INR', 'Paid'), ''].join('\n'));
    const json = await runCli(['import', file, '--kind', 'payment', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ inserted: 1, unknownStatuses: { Paid: 1 } });
    const known = path.join(dir, 'known.csv');
    fs.writeFileSync(known, [HEADER, row(6, 'INR', 'Paid'), ''].join('\n'));
    const mapped = await runCli(['import', known, '--kind', 'payment'], { ...env, PROVIDER_STATUS_MAP: 'Paid=success' });
    expect(mapped.code).toBe(0);
    expect(mapped.stderr).not.toContain('warning');
  });

  it('import --help lists the known status strings', async () => {
    const res = await runCli(['import', '--help'], {});
    expect(res.stdout).toContain('initiated, pending, processing, created, success, successful, completed, failed, failure, rejected');
    expect(res.stdout).toContain('currency INR, NGN or IDR (any case, stored upper case)');
  });

  it('--currency takes any case and refuses an unknown code the same way in reconcile and cases', async () => {
    const listed = await runCli(['cases', 'list', '--currency', 'ngn', '--json'], env);
    expect(listed.code).toBe(0);
    for (const args of [
      ['cases', 'list', '--currency', 'xyz'],
      ['reconcile', '--currency', 'xyz'],
    ]) {
      const res = await runCli(args, env);
      expect(res.code).toBe(3);
      expect(res.stderr).toContain(`argument 'xyz' is invalid. expected one of INR, NGN, IDR (any case; got "xyz").`);
    }
  });
});
