import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { loadConfig } from '../src/config/config.ts';
import { switchToPerAccountRefs } from '../src/db/merchant-ref-scope.ts';
import { preparePerAccountRefs } from '../src/db/merchant-ref-prepare.ts';

/** /days/:date/accounts: a day summed per account from orders, checks and cases on Postgres. */
let t: TestDatabase;
let app: FastifyInstance;
/** The same database under a configuration of two accounts. */
let multi: FastifyInstance;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-day-accounts-'));
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

beforeAll(async () => {
  t = await createTestDatabase('console_day_accounts', { env: { REPORT_TIMEZONE: 'UTC' } });
  const k = t.db.knex;
  await k.raw(
    `INSERT INTO rate_snapshots (currency, deposit, withdraw, taken_at) VALUES ('INR', 80, 81, '2026-11-19T00:00:00Z'), ('NGN', 1500, 1000, '2026-11-19T00:00:00Z')`,
  );
  // in-main: two INR payments on the day (one a mismatch), one the next day; ng-brand: a checked NGN payout, an unchecked NGN payment.
  await k.raw(
    `INSERT INTO payment_orders (id, account_id, merchant_ref, transaction_ref, currency, method, amount, created_at) VALUES
       (1, 'in-main', 'MREF-0001', 'T-1', 'INR', 'upi', 100.00, '2026-11-20T08:00:00Z'),
       (2, 'in-main', 'MREF-0002', 'T-2', 'INR', 'upi', 250.50, '2026-11-20T23:59:59Z'),
       (3, 'in-main', 'MREF-0003', 'T-3', 'INR', 'upi', 999.00, '2026-11-21T00:00:00Z'),
       (4, 'ng-brand', 'MREF-0004', 'T-4', 'NGN', 'bank', 700.00, '2026-11-20T09:00:00Z')`,
  );
  await k.raw(
    `INSERT INTO payout_orders (id, account_id, merchant_ref, transaction_ref, currency, method, amount, created_at)
     VALUES (1, 'ng-brand', 'P-1', 'PT-1', 'NGN', 'bank', 5000.00, '2026-11-20T10:00:00Z')`,
  );
  const run = await k.raw(`INSERT INTO job_runs (job) VALUES ('reconcile'), ('reconcile') RETURNING id`);
  const [first, runId] = (run.rows as Array<{ id: string }>).map((r) => r.id);
  // Order 1 was a mismatch first, then matched: the newest check decides.
  await k.raw(
    `INSERT INTO recon_items (run_id, account_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                             local_status, local_category, local_amount, verdict) VALUES
       (?, 'in-main', 'payment', 1, 'MREF-0001', 'T-1', 'INR', 'upi', '2026-11-21T01:00:00Z', 'Success', 'success', 100, 'mismatch'),
       (?, 'in-main', 'payment', 1, 'MREF-0001', 'T-1', 'INR', 'upi', '2026-11-21T02:00:00Z', 'Success', 'success', 100, 'matched'),
       (?, 'in-main', 'payment', 2, 'MREF-0002', 'T-2', 'INR', 'upi', '2026-11-21T02:00:00Z', 'Success', 'success', 250.50, 'mismatch'),
       (?, 'in-main', 'payment', 3, 'MREF-0003', 'T-3', 'INR', 'upi', '2026-11-21T02:00:00Z', 'Success', 'success', 999, 'mismatch'),
       (?, 'ng-brand', 'payout', 1, 'P-1', 'PT-1', 'NGN', 'bank', '2026-11-21T02:00:00Z', 'Success', 'success', 5000, 'mismatch')`,
    [first, runId, runId, runId, runId],
  );
  // Open cases: in-main's order 2 at 10 INR (1/8 USDT), ng-brand's payout at 20 NGN (1/50 USDT); a resolved one does not count.
  await k.raw(
    `INSERT INTO cases (account_id, subject, code, direction, order_id, merchant_ref, transaction_ref, currency, occurred_at,
                        state, resolution, created_at, opened_at, state_changed_at, last_seen_at, finding) VALUES
       ('in-main', 'payment:2', 'AMOUNT', 'payment', 2, 'MREF-0002', 'T-2', 'INR', '2026-11-20T23:59:59Z', 'open', NULL, now(), now(), now(), now(),
        '{"local": "250.50", "provider": "240.50"}'),
       ('ng-brand', 'payout:1', 'FEE', 'payout', 1, 'P-1', 'PT-1', 'NGN', '2026-11-20T10:00:00Z', 'acknowledged', NULL, now(), now(), now(), now(),
        '{"local": "10.00", "provider": "30.00"}'),
       ('in-main', 'payment:1', 'AMOUNT', 'payment', 1, 'MREF-0001', 'T-1', 'INR', '2026-11-20T08:00:00Z', 'resolved', 'fixed', now(), now(), now(), now(),
        '{"local": "100.00", "provider": "90.00"}')`,
  );
  await addUsers(t, clock, { vera: 'viewer' });
  app = await buildTestConsole(t, clock);
  const file = path.join(dir, 'accounts.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      accounts: [
        { id: 'in-main', baseUrl: 'http://127.0.0.1:9', merchantId: 'M-IN', secret: { env: 'IN_SECRET' } },
        { id: 'ng-brand', baseUrl: 'http://127.0.0.1:9', merchantId: 'M-NG', secret: { env: 'NG_SECRET' } },
      ],
    }),
  );
  const config = loadConfig({
    ...(t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR }),
    ACCOUNTS_FILE: file,
    IN_SECRET: 'secret-in',
    NG_SECRET: 'secret-ng',
    REPORT_TIMEZONE: 'UTC',
    LOG_LEVEL: 'silent',
  });
  multi = await buildTestConsole(t, clock, config);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await multi?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await t?.drop();
});

/** The cells of the table rows whose first cell is `first`, tags stripped. */
const rowsOf = (body: string, first: string): string[][] =>
  [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((m) => [...m[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()))
    .filter((cells) => cells[0] === first);
const rowOf = (body: string, first: string): string[] | undefined => rowsOf(body, first)[0];

describe('a day by account', () => {
  it('sums each account and currency from the database, and USDT at risk per account and overall', async () => {
    const vera = new Agent(app, '10.7.0.1');
    await vera.login('vera');
    const res = await vera.get('/days/2026-11-20/accounts');
    expect(res.statusCode).toBe(200);
    // orders checked, mismatches (newest check), amount of the day's orders, open at risk, in USDT
    expect(rowOf(res.body, 'in-main')).toEqual(['in-main', 'INR', '2', '1', '350.50', '10.00', '0.13']);
    // Payout and payment of one currency in one row; the unchecked payment counts in the amount, not as checked.
    expect(rowsOf(res.body, 'ng-brand')).toEqual([
      ['ng-brand', 'NGN', '1', '1', '5,700.00', '20.00', '0.02'],
      ['ng-brand', '0.02'],
    ]);
    expect(rowsOf(res.body, 'in-main')[1]).toEqual(['in-main', '0.13']);
    // 0.125 + 0.02 summed before rounding.
    expect(rowOf(res.body, 'all accounts')).toEqual(['all accounts', '0.15']);
  });

  it('refuses a bad date', async () => {
    const vera = new Agent(app, '10.7.0.2');
    await vera.login('vera');
    const res = await vera.get('/days/2026-13-01/accounts');
    expect(res.statusCode).toBe(400);
  });
});

const caseIds = (body: string) => [...body.matchAll(/<td class="num"><a href="\/cases\/(\d+)(?:\?back=[^"]*)?">/g)].map((m) => m[1]);

describe('the queue by account', () => {
  it('with two accounts: a selector, each account only its cases, the account kept in the links back', async () => {
    const vera = new Agent(multi, '10.7.0.3');
    await vera.login('vera');
    const all = await vera.get('/cases');
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain('<select name="account">');
    expect(caseIds(all.body).sort()).toEqual(['1', '2']);
    const inMain = await vera.get('/cases?account=in-main');
    expect(inMain.statusCode).toBe(200);
    expect(caseIds(inMain.body)).toEqual(['1']);
    expect(inMain.body).toContain('<option value="in-main" selected>');
    expect(inMain.body).toMatch(/href="\/cases\/1\?back=[^"]*account%3Din-main/);
    const ng = await vera.get('/cases?account=ng-brand&state=all');
    expect(caseIds(ng.body)).toEqual(['2']);
  });

  it('refuses an account not configured, naming the ones that are', async () => {
    const vera = new Agent(multi, '10.7.0.4');
    await vera.login('vera');
    const res = await vera.get('/cases?account=ke-main');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('account: &quot;ke-main&quot; is not a configured account; choose from in-main, ng-brand');
    expect(caseIds(res.body)).toEqual([]);
  });

  it('with one account: no selector, and the parameter changes nothing', async () => {
    const vera = new Agent(app, '10.7.0.5');
    await vera.login('vera');
    const res = await vera.get('/cases?account=ng-brand');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('name="account"');
    expect(caseIds(res.body).sort()).toEqual(['1', '2']);
  });
});

describe('the ref search by account', () => {
  it('with two accounts: ?account=ID finds only that account’s orders; an unknown id is a 400 naming the configured ones', async () => {
    const vera = new Agent(multi, '10.7.0.6');
    await vera.login('vera');
    // P-1 is ng-brand's payout, PT-1 its transaction ref; M-1 … M-3 are in-main's, M-4 ng-brand's.
    const both = await vera.get('/search?ref=MREF-0001');
    expect(both.statusCode).toBe(303);
    const none = await vera.get('/search?ref=MREF-0001&account=ng-brand');
    expect(none.statusCode).toBe(404);
    const mine = await vera.get('/search?ref=MREF-0004&account=ng-brand');
    expect(mine.statusCode).toBe(303);
    expect(mine.headers.location).toBe('/orders/payment/4');
    const bad = await vera.get('/search?ref=MREF-0004&account=ke-main');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('is not a configured account; choose from in-main, ng-brand');
  });

  it('with one account the parameter is ignored', async () => {
    const vera = new Agent(app, '10.7.0.7');
    await vera.login('vera');
    const res = await vera.get('/search?ref=MREF-0001&account=ng-brand');
    expect(res.statusCode).toBe(303);
  });
});

describe('the days list by account', () => {
  beforeAll(async () => {
    await t.db.knex.raw(
      `INSERT INTO report_versions (account_id, business_date, version, directory, manifest, content_hash, created_at) VALUES
         ('in-main', '2026-11-20', 1, '/nonexistent/in-main/2026-11-20/v1', '{"headline": "in-main day"}', 'h1', '2026-11-21T03:00:00Z'),
         ('ng-brand', '2026-11-19', 1, '/nonexistent/ng-brand/2026-11-19/v1', '{"headline": "ng-brand day"}', 'h2', '2026-11-20T03:00:00Z')`,
    );
  });

  it('with two accounts: a selector, one account days only, a link to each day by account; unknown id a 400', async () => {
    const vera = new Agent(multi, '10.7.0.8');
    await vera.login('vera');
    const all = await vera.get('/days');
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain('<select name="account">');
    expect(all.body).toContain('<a href="/days/2026-11-20/accounts">by account</a>');
    expect(all.body).toContain('in-main day');
    expect(all.body).toContain('ng-brand day');
    const ng = await vera.get('/days?account=ng-brand');
    expect(ng.body).toContain('ng-brand day');
    expect(ng.body).not.toContain('in-main day');
    const bad = await vera.get('/days?account=ke-main');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('is not a configured account; choose from in-main, ng-brand');
  });

  it('with one account: no selector, no per-account link, the parameter ignored', async () => {
    const vera = new Agent(app, '10.7.0.9');
    await vera.login('vera');
    const res = await vera.get('/days?account=ng-brand');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('name="account"');
    expect(res.body).not.toContain('by account');
    expect(res.body).toContain('in-main day');
  });
});

// Last: it switches the database to merchantRefs unique per account (sql/055).
describe('one merchantRef in two accounts', () => {
  it('the search lists both orders, each with its account, and each order page names its account', async () => {
    await preparePerAccountRefs(t.db.knex);
    await switchToPerAccountRefs(t.db.knex);
    await t.db.knex.raw(
      `INSERT INTO payment_orders (id, account_id, merchant_ref, transaction_ref, currency, method, amount, created_at) VALUES
         (11, 'in-main', 'shared-ord-1', 'T-11', 'INR', 'upi', 10.00, '2026-11-20T08:00:00Z'),
         (12, 'ng-brand', 'shared-ord-1', 'T-12', 'NGN', 'bank', 20.00, '2026-11-20T08:00:00Z')`,
    );
    const vera = new Agent(multi, '10.7.0.10');
    await vera.login('vera');
    const res = await vera.get('/search?ref=shared-ord-1');
    expect(res.statusCode).toBe(200);
    expect(rowOf(res.body, 'shared-ord-1')?.slice(0, 3)).toEqual(['shared-ord-1', 'in-main', 'T-11']);
    expect(rowsOf(res.body, 'shared-ord-1')[1]?.slice(0, 3)).toEqual(['shared-ord-1', 'ng-brand', 'T-12']);
    const page = await vera.get('/orders/payment/12');
    expect(page.body).toMatch(/<dt>account<\/dt>\s*<dd>ng-brand<\/dd>/);
  });
});
