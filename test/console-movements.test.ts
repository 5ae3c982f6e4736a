// Issue 38: the console's movements page. One finance user records a movement, the same user is
// refused its approval (maker-checker), a second approves it; both steps are in the movement's audit
// trail, and the BALANCE_DRIFT case the movement was is resolved, naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { observeCaseNow } from '../src/cases/observe.ts';
import { caseHistory, driftSubject, getCase } from '../src/db/cases.ts';
import { movementEvents, movementsByReference } from '../src/db/movements.ts';

let t: TestDatabase;
let app: FastifyInstance;
let driftCase: string;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
const windowStart = new Date('2026-11-22T08:00:00Z');
const windowEnd = new Date('2026-11-22T09:00:00Z');

beforeAll(async () => {
  t = await createTestDatabase('console_movements', { env: { REPORT_TIMEZONE: 'Africa/Lagos' } });
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance', frank: 'finance' });
  // The window drifted by an unrecorded top-up of NGN 1,500,000.00.
  const r = await observeCaseNow(
    t.db,
    {
      subject: driftSubject('NGN', windowStart, windowEnd),
      code: 'BALANCE_DRIFT',
      currency: 'NGN',
      windowStart,
      windowEnd,
      occurredAt: windowEnd,
    },
    { kind: 'finding' },
    clock.now(),
    { local: '0', provider: '1500000', drift: '1500000', note: 'NGN drift 1500000' },
  );
  driftCase = r.case!.id;
  app = await buildTestConsole(t, clock);
});
afterAll(async () => {
  await app?.close();
  await t?.drop();
});

const form = {
  reference: 'TOPUP-NGN-0001',
  kind: 'top_up',
  currency: 'NGN',
  direction: 'in',
  amount: '1500000.00',
  occurred_at: '2026-11-22T09:20:00+01:00',
  occurred_until: '',
  usdt_amount: '1000',
  usdt_rate: '1500',
  note: 'wallet funded for payouts',
};

async function signedIn(name: string): Promise<Agent> {
  const a = new Agent(app);
  expect((await a.login(name)).statusCode).toBe(303);
  return a;
}

describe('the movements page', () => {
  let id: string;

  it('a drift case links the page, whose form takes the drift’s currency, amount, sign and window', async () => {
    const fiona = await signedIn('fiona');
    const casePage = await fiona.get(`/cases/${driftCase}`);
    expect(casePage.body).toContain(`href="/movements?case=${driftCase}"`);
    const res = await fiona.get(`/movements?case=${driftCase}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`name="case" value="${driftCase}"`);
    expect(res.body).toContain('name="amount" value="1500000"');
    expect(res.body).toContain('<option value="NGN" selected>');
    expect(res.body).toContain('<option value="in" selected>');
    expect(res.body).toContain('name="occurred_at" value="2026-11-22T09:00:00+01:00"');
    expect(res.body).toContain('name="occurred_until" value="2026-11-22T10:00:00+01:00"');
  });

  it('records what finance types, refusing a bad field with its fix and keeping what was typed; a viewer cannot record', async () => {
    const fiona = await signedIn('fiona');
    await fiona.get('/movements');
    const bad = await fiona.post('/movements', { ...form, amount: '1,500,000', case: driftCase });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/Not recorded: amount: /);
    expect(bad.body).toContain('value="TOPUP-NGN-0001"');
    expect((await movementsByReference(t.db.knex, [form.reference])).size).toBe(0);

    const ok = await fiona.post('/movements', form);
    expect(ok.statusCode).toBe(303);
    id = /^\/movements\/(\d+)$/.exec(ok.headers.location as string)![1];
    const stored = (await movementsByReference(t.db.knex, [form.reference])).get(form.reference)!;
    expect([stored.id, stored.recordedBy, stored.source, stored.approvedBy, stored.amount]).toEqual([
      id,
      'fiona',
      'console',
      null,
      '1500000',
    ]);

    const again = await fiona.post('/movements', form);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('TOPUP-NGN-0001 is already recorded');

    const vera = await signedIn('vera');
    expect((await vera.post('/movements', { ...form, reference: 'BY-VIEWER' })).statusCode).toBe(403);
    expect((await movementsByReference(t.db.knex, ['BY-VIEWER'])).size).toBe(0);
  });

  it('lists it as pending approval; its recorder sees no approve button and is refused approving it', async () => {
    const fiona = await signedIn('fiona');
    const list = await fiona.get('/movements');
    expect(list.body).toMatch(/<strong>1<\/strong> recorded · <strong>1<\/strong> pending approval/);
    expect(list.body).toContain('recorded by you: someone else approves it');
    const page = await fiona.get(`/movements/${id}`);
    expect(page.body).not.toContain(`action="/movements/${id}/approve"`);
    const own = await fiona.post(`/movements/${id}/approve`);
    expect(own.statusCode).toBe(403);
    expect(own.body).toContain('another finance user approves it (maker-checker)');
    expect((await movementsByReference(t.db.knex, [form.reference])).get(form.reference)!.approvedBy).toBeNull();
    expect((await getCase(t.db.knex, driftCase))!.state).toBe('open');
  });

  it('a second finance user approves it: the drift case it was is resolved naming it; both steps audited; once only', async () => {
    const frank = await signedIn('frank');
    const page = await frank.get(`/movements/${id}`);
    expect(page.body).toContain(`action="/movements/${id}/approve"`);
    clock.advance(60_000);
    const res = await frank.post(`/movements/${id}/approve`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/movements/${id}?resolved=${driftCase}`);
    const after = await frank.get(res.headers.location as string);
    expect(after.body).toContain(`href="/cases/${driftCase}"`);

    const m = (await movementsByReference(t.db.knex, [form.reference])).get(form.reference)!;
    expect([m.approvedBy, m.approvedAt?.toISOString()]).toEqual(['frank', clock.now().toISOString()]);
    const events = await movementEvents(t.db.knex, id);
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ['recorded', 'fiona'],
      ['approved', 'frank'],
    ]);
    expect(after.body).toMatch(/<td>recorded<\/td>\s*<td>fiona<\/td>/);
    expect(after.body).toMatch(/<td>approved<\/td>\s*<td>frank<\/td>/);

    const c = (await getCase(t.db.knex, driftCase))!;
    expect(c.state).toBe('resolved');
    const note = (await caseHistory(t.db.knex, driftCase)).at(-1)!.note;
    expect(note).toContain('TOPUP-NGN-0001');
    expect(note).toContain('recorded by fiona, approved by frank');

    const twice = await frank.post(`/movements/${id}/approve`);
    expect(twice.statusCode).toBe(409);
    expect((await movementEvents(t.db.knex, id)).length).toBe(2);
  });

  it("the day's page links its movements; the day's list shows the approved movement and its bank state", async () => {
    const vera = await signedIn('vera');
    expect((await vera.get('/days/2026-11-22')).body).toContain('href="/movements?day=2026-11-22"');
    const day = await vera.get('/movements?day=2026-11-22');
    expect(day.statusCode).toBe(200);
    expect(day.body).toContain('TOPUP-NGN-0001');
    expect(day.body).toMatch(/<strong>1<\/strong> recorded moving the balance on/);
    expect(day.body).toMatch(/<strong>0<\/strong> pending approval/);
    expect(day.body).toContain('no bank leg'); // a USDT top-up: no statement line expected
    expect(day.body).not.toContain('name="reference"'); // a viewer has no form
    expect((await vera.get('/movements?day=2026-11-21')).body).not.toContain('TOPUP-NGN-0001');
    expect((await vera.get('/movements?day=2026-13-01')).statusCode).toBe(400);
    expect((await vera.get('/movements/999999')).statusCode).toBe(404);
  });
});
