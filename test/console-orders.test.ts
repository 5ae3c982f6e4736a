import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { insertOrders } from '../src/db/orders.ts';
import { observeCaseNow } from '../src/cases/observe.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { csvTable } from '../src/console/pages/format.ts';

let t: TestDatabase;
let app: FastifyInstance;
let reportDir: string;
let versionId: string;
let onlyId: string;
let caseId: string;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
const created = new Date('2026-11-21T08:00:00Z');

beforeAll(async () => {
  reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-console-orders-'));
  t = await createTestDatabase('console_orders', { env: { REPORT_DIR: reportDir } });
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance' });
  const order = (merchantRef: string, transactionRef: string) => ({
    merchantRef,
    transactionRef,
    currency: 'INR' as const,
    method: 'UPI',
    amount: '1234.5',
    fee: '12.5',
    createdAt: created,
  });
  const [only] = await insertOrders(t.db.knex, 'payment', [
    order('ORD-Unique-000111', 'tx-a1b2c3d4e5'),
    order('ORD-Twin-000201', 'tx-twin-1'),
    order('ORD-Twin-000202', 'tx-twin-2'),
  ]);
  await insertOrders(t.db.knex, 'payout', [{ ...order('PO-lonely-9', 'tx-payout-77'), bankCode: 'HDFC0001' }]);
  onlyId = only.id;
  const opened = await observeCaseNow(
    t.db,
    {
      subject: `payment:${only.id}`,
      code: 'FEE',
      direction: 'payment',
      orderId: only.id,
      merchantRef: only.merchantRef,
      transactionRef: only.transactionRef,
      currency: 'INR',
      occurredAt: created,
    },
    { kind: 'finding' },
    clock.now(),
    { local: '12.5', provider: '13', note: 'fee differs' },
  );
  caseId = opened.case!.id;
  const written = await writeReports(t.db, { date: '2026-11-21', timezone: 'UTC', reportDir, now: clock.now() });
  versionId = written.record!.id;
  app = await buildTestConsole(t, clock);
});
afterAll(async () => {
  await app?.close();
  await t?.drop();
  fs.rmSync(reportDir, { recursive: true, force: true });
});

describe('search by ref', () => {
  it('a leading piece of a merchant ref in another case lands on the one order (viewer)', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const res = await agent.get('/search?ref=ord-unique');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/orders/payment/${onlyId}`);
  });

  it('a transaction ref piece, and a payout, land on their order', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    expect((await agent.get('/search?ref=TX-A1B2C3')).headers.location).toBe(`/orders/payment/${onlyId}`);
    expect((await agent.get('/search?ref=PO-LONELY-9')).headers.location).toMatch(/^\/orders\/payout\/\d+$/);
  });

  it('several matches give a short list linking each order; none and too short say so', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const several = await agent.get('/search?ref=ord-twin');
    expect(several.statusCode).toBe(200);
    expect(several.body).toContain('2 orders have a ref starting with');
    expect(several.body.match(/href="\/orders\/payment\/\d+"/g)).toHaveLength(2);
    const none = await agent.get('/search?ref=nothing-like-this');
    expect(none.statusCode).toBe(404);
    expect(none.body).toContain('No payment or payout has a merchant or transaction ref starting with');
    const short = await agent.get('/search?ref=ord');
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('ref: type a merchant or transaction ref, whole or its first 6 characters at least');
    // LIKE's wildcards are literal: "%" matches no ref.
    expect((await agent.get('/search?ref=%25%25%25%25%25%25')).statusCode).toBe(404);
  });

  it('every page carries the search box and the icon', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    for (const url of ['/days', '/cases', `/cases/${caseId}`, '/jobs', '/reruns', `/orders/payment/${onlyId}`]) {
      const body = (await agent.get(url)).body;
      expect(body, url).toContain('action="/search"');
      expect(body, url).toContain('rel="icon" href="/favicon.ico"');
    }
  });
});

describe('the order page', () => {
  it('shows both sides, its case linked, the report version linked', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const res = await agent.get(`/orders/payment/${onlyId}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('ORD-Unique-000111');
    expect(res.body).toContain('tx-a1b2c3d4e5');
    expect(res.body).toContain('1,234.50');
    expect(res.body).toContain(`href="/cases/${caseId}"`);
    expect(res.body).toContain('href="/days/2026-11-21#v1"');
    expect(res.body).toContain('No notification received.');
  });

  it('an unknown order or direction is a 404 page', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    expect((await agent.get('/orders/payment/999999')).statusCode).toBe(404);
    expect((await agent.get('/orders/refund/1')).statusCode).toBe(404);
    expect((await agent.get('/orders/payment/abc')).statusCode).toBe(404);
  });

  it('needs a session', async () => {
    const res = await new Agent(app).get(`/orders/payment/${onlyId}`);
    expect(res.statusCode).toBe(302);
    expect((await new Agent(app).get('/search?ref=ord-unique')).statusCode).toBe(302);
  });

  it('the case page links its order, its day and the report version', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const body = (await agent.get(`/cases/${caseId}`)).body;
    expect(body).toContain(`href="/orders/payment/${onlyId}"`);
    expect(body).toContain('href="/days/2026-11-21"');
    expect(body).toContain('href="/days/2026-11-21#v1"');
  });
});

describe('favicon and report.html', () => {
  it('/favicon.ico is served without a session', async () => {
    const res = await app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('image/svg+xml');
  });

  it('report.html opens inline as html; CSV still downloads', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const page = await agent.get(`/reports/${versionId}/files/report.html`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-disposition']).toMatch(/^inline; /);
    expect(page.headers['content-security-policy']).toContain('sandbox');
    const csv = await agent.get(`/reports/${versionId}/files/items.csv`);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; /);
  });
});

describe('links from the day page and report tables', () => {
  it("the day page lists the version's mismatches linking their order and case, and the day's cases", async () => {
    // As a report records a checked mismatch (the test's order was never checked: it is recorded unchecked).
    await t.db
      .knex('report_version_orders')
      .where({ version_id: versionId, direction: 'payment', order_id: onlyId })
      .update({ verdict: 'mismatch', codes: ['FEE'] });
    const agent = new Agent(app);
    await agent.login('vera');
    const body = (await agent.get('/days/2026-11-21')).body;
    expect(body).toMatch(/Mismatches\s*<span class="muted">\(1 in v1\)/);
    expect(body).toContain(`<a href="/orders/payment/${onlyId}">ORD-Unique-000111</a>`);
    expect(body).toContain(`<a href="/cases/${caseId}">#${caseId}</a>`);
    expect(body).toContain('href="/cases?day=2026-11-21"');
    expect(body).toContain('id="v1"');
  });

  it('report tables (open items, late changes) link refs to their order and case ids to their case', () => {
    const table = csvTable({
      columns: ['merchant_ref', 'case_id', 'amount'],
      rows: [['ORD-Unique-000111', '7 9', '5']],
      truncated: false,
    }).text;
    expect(table).toContain('<a href="/search?ref=ORD-Unique-000111">ORD-Unique-000111</a>');
    expect(table).toContain('<a href="/cases/7">#7</a>');
    expect(table).toContain('<a href="/cases/9">#9</a>');
  });
});
