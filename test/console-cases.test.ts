import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { observeCaseNow } from '../src/cases/observe.ts';
import { getCase, caseHistory } from '../src/db/cases.ts';

let t: TestDatabase;
let app: FastifyInstance;
let feeCase: string;
let amountCase: string;

interface ConsoleWithCases {
  t: TestDatabase;
  app: FastifyInstance;
  feeCase: string;
  amountCase: string;
  close(): Promise<void>;
}

/** A database, its own clock and console, two users and two open cases (FEE in INR, AMOUNT in NGN a day later). */
async function consoleWithTwoCases(): Promise<ConsoleWithCases> {
  const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
  const db = await createTestDatabase('console_cases');
  const open = async (subject: string, code: string, currency: string, occurredAt: Date, finding: Record<string, string>) => {
    const r = await observeCaseNow(
      db.db,
      {
        subject,
        code,
        direction: 'payment',
        orderId: subject.split(':')[1],
        merchantRef: `ref-${subject}`,
        transactionRef: `tx-${subject}`,
        currency,
        occurredAt,
      },
      { kind: 'finding' },
      clock.now(),
      finding,
    );
    return r.case!.id;
  };
  await addUsers(db, clock, { vera: 'viewer', fiona: 'finance' });
  const fee = await open('payment:901', 'FEE', 'INR', new Date('2026-11-21T08:00:00Z'), {
    local: '12.5',
    provider: '13',
    note: 'fee differs',
  });
  clock.advance(2 * 86_400_000);
  const amount = await open('payment:902', 'AMOUNT', 'NGN', new Date('2026-11-22T08:00:00Z'), {
    local: '1234567.5',
    provider: '1234567.25',
    note: 'amount differs',
  });
  const server = await buildTestConsole(db, clock);
  return {
    t: db,
    app: server,
    feeCase: fee,
    amountCase: amount,
    close: async () => {
      await server.close();
      await db.drop();
    },
  };
}

let shared: ConsoleWithCases | undefined;
beforeAll(async () => {
  shared = await consoleWithTwoCases();
  ({ t, app, feeCase, amountCase } = shared);
});
afterAll(() => shared?.close());

describe('cases queue', () => {
  it('needs a session: pages redirect, actions are 401', async () => {
    const anon = new Agent(app);
    for (const url of ['/cases', `/cases/${feeCase}`]) expect((await anon.get(url)).statusCode, url).toBe(302);
    for (const url of [`/cases/${feeCase}/acknowledge`, `/cases/${feeCase}/resolve`])
      expect((await anon.post(url, {}, { csrf: 'x' })).statusCode, url).toBe(401);
  });

  it('a viewer reads the queue and a case, without forms, and gets 403 for acting', async () => {
    const vera = new Agent(app, '10.1.0.1');
    await vera.login('vera');
    const list = await vera.get('/cases');
    expect(list.statusCode).toBe(200);
    // The queue shows what is at stake, signed (provider − merchant); both values are on the case page.
    expect(list.body).toContain('−0.25');
    const page = await vera.get(`/cases/${feeCase}`);
    expect(page.statusCode).toBe(200);
    expect(list.body).toContain('+0.50');
    expect(page.body).toContain('<strong>0.50 INR</strong>');
    expect(page.body).toContain('12.50');
    expect(page.body).not.toContain('action="/cases');
    expect((await vera.post(`/cases/${feeCase}/acknowledge`, { note: 'x' })).statusCode).toBe(403);
    expect((await vera.post(`/cases/${feeCase}/resolve`, { reason: 'adjusted', note: 'x' })).statusCode).toBe(403);
    expect((await getCase(t.db.knex, feeCase))!.state).toBe('open');
  });

  it('filters by state, code, currency, day and age', async () => {
    const fiona = new Agent(app, '10.1.0.2');
    await fiona.login('fiona');
    const ids = async (q: string) =>
      [...(await fiona.get(`/cases${q}`)).body.matchAll(/href="\/cases\/(\d+)(?:\?back=[^"]*)?"/g)].map((m) => m[1]);
    expect(await ids('')).toEqual([feeCase, amountCase]);
    expect(await ids('?code=FEE')).toEqual([feeCase]);
    expect(await ids('?currency=NGN')).toEqual([amountCase]);
    expect(await ids('?day=2026-11-21')).toEqual([feeCase]);
    expect(await ids('?age=1d')).toEqual([feeCase]);
    expect(await ids('?state=resolved')).toEqual([]);
    const bad = await fiona.get('/cases?day=yesterday&currency=USD');
    expect(bad.body).toContain('day: ');
    expect(bad.body).toContain('currency: expected one of');
  });

  // Resolves its FEE case, which the other its expect open: it works on a console and database of its own.
  it('finance acknowledges and resolves with reason and note, written to the case history as the console user', async () => {
    const own = await consoleWithTwoCases();
    try {
      const fiona = new Agent(own.app, '10.1.0.3');
      await fiona.login('fiona');
      const page = await fiona.get(`/cases/${own.feeCase}`);
      const version = /name="version" value="(\d+)"/.exec(page.body)![1];
      expect((await fiona.post(`/cases/${own.feeCase}/acknowledge`, { note: 'looking at it', version })).statusCode).toBe(303);
      expect((await getCase(own.t.db.knex, own.feeCase))!.state).toBe('acknowledged');
      // A form computed from the older version is refused: the case moved since.
      const stale = await fiona.post(`/cases/${own.feeCase}/resolve`, { reason: 'adjusted', note: 'x', version });
      expect(stale.statusCode).toBe(409);
      const fresh = /name="version" value="(\d+)"/.exec((await fiona.get(`/cases/${own.feeCase}`)).body)![1];
      const noNote = await fiona.post(`/cases/${own.feeCase}/resolve`, { reason: 'adjusted', note: '', version: fresh });
      expect(noNote.statusCode).toBe(409);
      expect(noNote.body).toContain('note:');
      const badReason = await fiona.post(`/cases/${own.feeCase}/resolve`, { reason: 'because', note: 'x', version: fresh });
      expect(badReason.statusCode).toBe(409);
      expect(
        (await fiona.post(`/cases/${own.feeCase}/resolve`, { reason: 'adjusted', note: 'fee booked as 13.00', version: fresh })).statusCode,
      ).toBe(303);
      const c = (await getCase(own.t.db.knex, own.feeCase))!;
      expect(c).toMatchObject({ state: 'resolved', resolution: 'adjusted' });
      const history = await caseHistory(own.t.db.knex, own.feeCase);
      expect(history.slice(-2)).toMatchObject([
        { toState: 'acknowledged', actor: 'console:fiona', note: 'looking at it' },
        { toState: 'resolved', reason: 'adjusted', actor: 'console:fiona', note: 'fee booked as 13.00' },
      ]);
      expect((await fiona.get(`/cases/${own.feeCase}`)).body).toContain('fee booked as 13.00');
    } finally {
      await own.close();
    }
  });

  it('refuses an action without a version, or with one that is not a number: 400 naming the field, the case as it was', async () => {
    const fiona = new Agent(app, '10.1.0.5');
    await fiona.login('fiona');
    await fiona.get(`/cases/${amountCase}`);
    const before = (await getCase(t.db.knex, amountCase))!;
    for (const [action, form] of [
      ['acknowledge', { note: 'x' }],
      ['acknowledge', { note: 'x', version: '' }],
      ['acknowledge', { note: 'x', version: 'latest' }],
      ['acknowledge', { note: 'x', version: '-1' }],
      ['resolve', { reason: 'adjusted', note: 'x' }],
      ['resolve', { reason: 'adjusted', note: 'x', version: '1.5' }],
    ] as Array<[string, Record<string, string>]>) {
      const res = await fiona.post(`/cases/${amountCase}/${action}`, form);
      expect(res.statusCode, JSON.stringify([action, form])).toBe(400);
      expect(res.body).toContain('version: missing or not a whole number');
    }
    expect(await getCase(t.db.knex, amountCase)).toEqual(before);
  });

  it('refuses an action without the CSRF token and leaves the case as it was', async () => {
    const fiona = new Agent(app, '10.1.0.4');
    await fiona.login('fiona');
    expect((await fiona.post(`/cases/${amountCase}/acknowledge`, { note: 'x' }, { csrf: null })).statusCode).toBe(403);
    expect((await getCase(t.db.knex, amountCase))!.state).toBe('open');
    expect((await fiona.get('/cases/999999')).statusCode).toBe(404);
    expect((await fiona.get('/cases/abc')).statusCode).toBe(404);
  });
});
