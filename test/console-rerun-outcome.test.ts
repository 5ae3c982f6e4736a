import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { MailSink, freePort } from './helpers/mail-sink.ts';
import { insertOrders } from '../src/db/orders.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { findUserByName } from '../src/db/console-users.ts';
import { claimNextRerun, enqueueRerun, finishRerun } from '../src/db/console-reruns.ts';

const DAY = '2026-11-21';
let t: TestDatabase;
let app: FastifyInstance;
let reportDir: string;
let sink: MailSink;
let rerunId: string;
let addedId: string;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

const order = (ref: string) => ({
  merchantRef: ref,
  transactionRef: `tx-${ref}`,
  currency: 'NGN' as const,
  method: 'card',
  amount: '5000',
  createdAt: new Date(`${DAY}T09:00:00Z`),
});

beforeAll(async () => {
  reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-rerun-outcome-'));
  const port = await freePort();
  sink = new MailSink();
  await sink.listen(port);
  t = await createTestDatabase('console_rerun_outcome', {
    env: {
      REPORT_DIR: reportDir,
      PROVIDER_BASE_URL: 'http://127.0.0.1:9',
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      REPORT_EMAIL_TO: 'accounting@merchant.example',
    },
  });
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance' });
  await insertOrders(t.db.knex, 'payment', [order('first-order-1')]);
  await writeReports(t.db, { date: DAY, timezone: 'UTC', reportDir, now: clock.now() });
  // An order booked late for the day: the rerun's report is v2 with one order more.
  const [added] = await insertOrders(t.db.knex, 'payment', [order('late-order-2')]);
  addedId = added.id;
  clock.advance(60_000);
  const v2 = await writeReports(t.db, { date: DAY, timezone: 'UTC', reportDir, now: clock.now() });
  expect(v2.record!.version).toBe(2);
  // The rerun that wrote v2, as the worker records it.
  const fiona = (await findUserByName(t.db.knex, 'fiona'))!;
  rerunId = (await enqueueRerun(t.db.knex, { businessDate: DAY, userId: fiona.id, now: clock.now() })).id;
  await claimNextRerun(t.db.knex, clock.now());
  await finishRerun(t.db.knex, rerunId, { state: 'completed', reconcileRunIds: [], reportVersion: 2, error: null, now: clock.now() });
  app = await buildTestConsole(t, clock);
});
afterAll(async () => {
  await app?.close();
  await t?.drop();
  await sink?.close();
  fs.rmSync(reportDir, { recursive: true, force: true });
});

describe('a finished rerun reports back', () => {
  it('shows the headline, counts against the previous version and the changed order, linked (viewer, no send button)', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const res = await agent.get(`/reruns/${rerunId}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Report v2 <span class="muted">against v1</span>');
    expect(res.body).toMatch(/<div class="headline" id="headline">\s*\S/);
    expect(res.body).toMatch(/<td>unchecked<\/td>\s*<td class="num">1<\/td>\s*<td class="num">2<\/td>\s*<td class="num">\+1<\/td>/);
    expect(res.body).toContain('1 order changed');
    expect(res.body).toContain(`<a href="/orders/payment/${addedId}">late-order-2</a>`);
    expect(res.body).toContain('not recorded');
    expect(res.body).not.toContain('Send v2 to accounting');
    expect((await agent.post(`/reruns/${rerunId}/send`)).statusCode).toBe(403);
    expect(sink.received).toHaveLength(0);
  });

  it('finance sends it once: CSRF required, e-mailed, recorded, a second send refused', async () => {
    const agent = new Agent(app);
    await agent.login('fiona');
    expect((await agent.get(`/reruns/${rerunId}`)).body).toContain('Send v2 to accounting');
    expect((await agent.post(`/reruns/${rerunId}/send`, {}, { csrf: null })).statusCode).toBe(403);
    expect(sink.received).toHaveLength(0);
    const sent = await agent.post(`/reruns/${rerunId}/send`);
    expect(sent.statusCode).toBe(303);
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0].subject).toContain(DAY);
    expect((await agent.get(`/reruns/${rerunId}`)).body).toContain('v2 was sent to accounting.');
    const again = await agent.post(`/reruns/${rerunId}/send`);
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('already sent to accounting');
    expect(sink.received).toHaveLength(1);
    const actions = await t.db.knex('console_actions').whereLike('action', 'report-email-%').orderBy('id').select('action', 'actor');
    expect(actions).toEqual([
      { action: 'report-email-sent', actor: 'fiona' },
      { action: 'report-email-already_sent', actor: 'fiona' },
    ]);
  });

  it('without SMTP the send is refused with the reason, on the page and at the action', async () => {
    const noMail = await buildTestConsole(t, clock, { ...t.config, SMTP_URL: undefined });
    try {
      await t.db.knex('report_versions').where({ business_date: DAY, version: 2 }).update({ email_status: 'none' });
      const agent = new Agent(noMail);
      await agent.login('fiona');
      expect((await agent.get(`/reruns/${rerunId}`)).body).toContain(
        'Cannot send from here: e-mail is not configured (SMTP_URL is not set).',
      );
      const res = await agent.post(`/reruns/${rerunId}/send`);
      expect(res.statusCode).toBe(409);
      expect(res.body).toContain('Cannot send: e-mail is not configured');
    } finally {
      await noMail.close();
    }
  });
});

describe('a rerun is offered only where it can work', () => {
  it('without a provider the day page says why and POST /reruns is refused with the reason', async () => {
    const noProvider = await buildTestConsole(t, clock, { ...t.config, PROVIDER_BASE_URL: undefined });
    try {
      const agent = new Agent(noProvider);
      await agent.login('fiona');
      const day = (await agent.get(`/days/${DAY}`)).body;
      expect(day).not.toContain('Rerun this day');
      expect(day).toContain('rerun unavailable: no payments provider is configured');
      const res = await agent.post('/reruns', { date: DAY });
      expect(res.statusCode).toBe(409);
      expect(res.body).toContain('PROVIDER_BASE_URL is not set');
    } finally {
      await noProvider.close();
    }
  });
});
