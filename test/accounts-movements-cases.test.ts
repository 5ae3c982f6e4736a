import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config/config.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { runCli } from './helpers/cli.ts';

// Issue 41: with several accounts the console's movement form records into the account chosen, the
// movements list filters by account, and `cases list` names and filters by account. One account: as before.

let t: TestDatabase;
let single: FastifyInstance;
let multi: FastifyInstance;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-movements-cases-'));
const accountsFile = path.join(dir, 'accounts.json');
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
const accountEnv = { ACCOUNTS_FILE: accountsFile, IN_SECRET: 'secret-in', NG_SECRET: 'secret-ng', LOG_LEVEL: 'silent' };

beforeAll(async () => {
  t = await createTestDatabase('accounts_movements_cases', { env: { REPORT_TIMEZONE: 'UTC' } });
  fs.writeFileSync(
    accountsFile,
    JSON.stringify({
      accounts: [
        { id: 'in-main', baseUrl: 'http://127.0.0.1:9', merchantId: 'M-IN', secret: { env: 'IN_SECRET' } },
        { id: 'ng-brand', baseUrl: 'http://127.0.0.1:9', merchantId: 'M-NG', secret: { env: 'NG_SECRET' } },
      ],
    }),
  );
  await t.db.knex.raw(
    `INSERT INTO cases (account_id, subject, code, direction, order_id, merchant_ref, transaction_ref, currency, occurred_at,
                        state, created_at, opened_at, state_changed_at, last_seen_at, finding) VALUES
       ('in-main', 'payment:1', 'AMOUNT', 'payment', 1, 'MREF-IN-1', 'T-IN-1', 'INR', '2026-11-20T08:00:00Z', 'open', now(), now(), now(), now(),
        '{"local": "100.00", "provider": "90.00"}'),
       ('ng-brand', 'payment:2', 'FEE', 'payment', 2, 'MREF-NG-2', 'T-NG-2', 'NGN', '2026-11-20T09:00:00Z', 'open', now(), now(), now(), now(),
        '{"local": "10.00", "provider": "30.00"}')`,
  );
  await addUsers(t, clock, { fiona: 'finance' });
  single = await buildTestConsole(t, clock);
  const config = loadConfig({
    ...(t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR }),
    ...accountEnv,
    REPORT_TIMEZONE: 'UTC',
  });
  multi = await buildTestConsole(t, clock, config);
}, 120_000);
afterAll(async () => {
  await single?.close();
  await multi?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await t?.drop();
});

const form = {
  reference: 'TOPUP-NG-0001',
  kind: 'top_up',
  currency: 'NGN',
  direction: 'in',
  amount: '1500.00',
  occurred_at: '2026-11-22T09:20:00+01:00',
  occurred_until: '',
  usdt_amount: '1',
  usdt_rate: '1500',
  note: '',
};

async function signedIn(app: FastifyInstance): Promise<Agent> {
  const a = new Agent(app);
  expect((await a.login('fiona')).statusCode).toBe(303);
  return a;
}

const accountOfMovement = async (reference: string) =>
  (await t.db.knex('movements').where({ reference }).select('account')).map((r: { account: string }) => r.account);

describe('the movement form and list with two accounts', () => {
  it('one account: no account select, no account column', async () => {
    const fiona = await signedIn(single);
    const res = await fiona.get('/movements');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('name="account"');
    expect(res.body).not.toContain('<th>account</th>');
  });

  it('offers the configured accounts, refuses a post without one or with an unknown one (400 naming them), records into the chosen one', async () => {
    const fiona = await signedIn(multi);
    const list = await fiona.get('/movements');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<select name="account" required>');
    expect(list.body).toContain('<option value="in-main"');
    expect(list.body).toContain('<option value="ng-brand"');

    const none = await fiona.post('/movements', form);
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Not recorded: account: required, choose from in-main, ng-brand.');
    expect(none.body).toContain('value="TOPUP-NG-0001"');
    const unknown = await fiona.post('/movements', { ...form, account: 'nowhere' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('account: &quot;nowhere&quot; is not a configured account; choose from in-main, ng-brand');
    expect(await accountOfMovement(form.reference)).toEqual([]);

    const ok = await fiona.post('/movements', { ...form, account: 'ng-brand' });
    expect(ok.statusCode).toBe(303);
    expect(await accountOfMovement(form.reference)).toEqual(['ng-brand']);
    // A refusal after the choice keeps the chosen account selected.
    const again = await fiona.post('/movements', { ...form, account: 'ng-brand' });
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('<option value="ng-brand" selected>');
  });

  it('filters the list by ?account= and names each movement’s account', async () => {
    const fiona = await signedIn(multi);
    const all = await fiona.get('/movements');
    expect(all.body).toContain('<th>account</th>');
    expect(all.body).toMatch(/<td>ng-brand<\/td>\s*<td><a href="\/movements\/\d+">TOPUP-NG-0001<\/a>/);
    const theirs = await fiona.get('/movements?account=ng-brand');
    expect(theirs.statusCode).toBe(200);
    expect(theirs.body).toContain('TOPUP-NG-0001');
    const others = await fiona.get('/movements?account=in-main');
    expect(others.statusCode).toBe(200);
    expect(others.body).not.toContain('TOPUP-NG-0001');
    // The list's filter preselects the form's account.
    expect(others.body).toContain('<option value="in-main" selected>');
    const bad = await fiona.get('/movements?account=nowhere');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('is not a configured account; choose from in-main, ng-brand');
  });
});

describe('cases list with two accounts', () => {
  it.skipIf(requiresServer('the command runs as its own process on the same database'))(
    'names each case’s account, filters by --account, refuses an unknown one naming the ids; the ledger needs --account; one account as before',
    async () => {
      const env = { DATABASE_URL: t.url!, ...accountEnv };
      const all = await runCli(['cases', 'list'], env);
      expect(all.code).toBe(0);
      expect(all.stdout).toMatch(/case\s+account\s+state/);
      expect(all.stdout).toContain('in-main');
      expect(all.stdout).toContain('ng-brand');

      const theirs = await runCli(['cases', 'list', '--account', 'ng-brand'], env);
      expect(theirs.code).toBe(0);
      expect(theirs.stdout).toContain('MREF-NG-2');
      expect(theirs.stdout).not.toContain('MREF-IN-1');
      const byRef = await runCli(['cases', 'list', '--ref', 'MREF-IN', '--account', 'ng-brand'], env);
      expect(byRef.stdout).toContain('no cases match');
      const json = JSON.parse((await runCli(['cases', 'list', '--account', 'in-main', '--json'], env)).stdout) as {
        cases: Array<{ account_id: string; merchant_ref: string }>;
      };
      expect(json.cases.map((c) => [c.account_id, c.merchant_ref])).toEqual([['in-main', 'MREF-IN-1']]);

      const bad = await runCli(['cases', 'list', '--account', 'nowhere'], env);
      expect(bad.code).toBe(3);
      expect(bad.stderr).toContain('configured: in-main, ng-brand');

      // The ledger is one account's: naming none with several accounts is refused, naming them.
      const ledger = await runCli(['ledger', 'postings'], env);
      expect(ledger.code).toBe(3);
      expect(ledger.stderr).toContain('--account: required, 2 accounts are configured (in-main, ng-brand)');
      expect((await runCli(['ledger', 'postings', '--account', 'ng-brand'], env)).code).toBe(0);

      const one = await runCli(['cases', 'list'], { DATABASE_URL: t.url!, LOG_LEVEL: 'silent' });
      expect(one.code).toBe(0);
      expect(one.stdout).not.toMatch(/\baccount\b/);
      const oneJson = JSON.parse((await runCli(['cases', 'list', '--json'], { DATABASE_URL: t.url!, LOG_LEVEL: 'silent' })).stdout) as {
        cases: Array<Record<string, unknown>>;
      };
      expect(oneJson.cases.every((c) => !('account_id' in c))).toBe(true);
      expect((await runCli(['ledger', 'postings'], { DATABASE_URL: t.url!, LOG_LEVEL: 'silent' })).code).toBe(0);
    },
  );
});
