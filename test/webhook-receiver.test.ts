import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrders } from '../src/db/orders.ts';
import { silentLogger } from '../src/log/logger.ts';
import { ProviderClient } from '../src/provider/client.ts';
import { hmacSha256, unixTimestamp } from '../src/provider/signing.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { confirmPendingWebhooks } from '../src/webhook/confirm.ts';
import { createWebhookHandler } from '../src/webhook/handler.ts';
import { createConfirmQueue, type ConfirmQueue } from '../src/webhook/queue.ts';
import { startWebhookServer, type WebhookServer } from '../src/webhook/server.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

const SECRET = 'demo-secret';
let t: TestDatabase;
let sandbox: Sandbox;
let control: SandboxControl;
let client: ProviderClient;
let queue: ConfirmQueue;
let receiver: WebhookServer;
/** Deliveries whose acknowledgement the test drops (the row is stored, the provider sees a reset). */
let dropAcks = 0;

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

function handler() {
  const h = createWebhookHandler({
    db: t.db,
    scheme: hmacSha256,
    secret: SECRET,
    now: Date.now,
    logger: silentLogger,
    windowSec: 900,
    maxBodyBytes: 4096,
    confirm: queue.enqueue,
  });
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (dropAcks > 0) {
      dropAcks--;
      res.end = (() => req.socket.destroy()) as unknown as typeof res.end;
      res.writeHead = (() => res) as unknown as typeof res.writeHead;
    }
    await h(req, res);
  };
}

beforeAll(async () => {
  t = await createTestDatabase('webhook');
  // Payments become final 1 s (sandbox clock) after initiate; tests advance the clock to finalize them.
  sandbox = await startSandbox({
    webhookIntervalMs: 100,
    webhookMaxAttempts: 10,
    lifecycle: { paymentDelayMs: { min: 1000, max: 1000 }, paymentFailedShare: 0, paymentPartialShare: 0, paymentStuckShare: 0 },
  });
  control = new SandboxControl(sandbox.url);
  client = new ProviderClient({
    baseUrl: sandbox.url,
    merchantId: 'demo-merchant',
    secret: SECRET,
    scheme: hmacSha256,
    retryBaseMs: 5,
    maxRetries: 1,
  });
  queue = createConfirmQueue({ db: t.db, client, concurrency: 4 });
  receiver = await startWebhookServer(handler(), { port: 0 });
  await control.setWebhookUrl(`${receiver.url}/webhooks/payment`);
});

afterAll(async () => {
  await receiver?.close();
  await queue?.idle();
  await sandbox?.close();
  await client?.close();
  await t?.drop();
});

let seq = 0;
/** A payment initiated at the sandbox and recorded locally as the merchant's pending order. */
async function newPayment(amount = '25000.00'): Promise<{ merchantRef: string; transactionRef: string }> {
  const merchantRef = `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
  const init = await client.initiatePayment({
    merchantRef,
    currency: 'NGN',
    method: 'TRANSFER',
    amount,
    name: 'Ada Obi',
    phone: '+2348012345678',
    email: 'ada@example.com',
    redirectUrl: 'https://shop.example.com/done',
  });
  await insertOrders(t.db.knex, 'payment', [
    { merchantRef, transactionRef: init.transactionRef, currency: 'NGN', method: 'TRANSFER', amount },
  ]);
  return { merchantRef, transactionRef: init.transactionRef };
}

const eventsOf = (ref: string) => t.db.knex('webhook_events').where({ transaction_ref: ref }).select('*');
const orderOf = (ref: string) => t.db.knex('payment_orders').where({ transaction_ref: ref }).first();

/** POSTs a body signed as the provider would (or not), straight to the receiver. */
async function post(body: string, opts: { timestamp?: string; signature?: string | null; path?: string; method?: string } = {}) {
  const timestamp = opts.timestamp ?? unixTimestamp(Date.now());
  const headers: Record<string, string> = { 'content-type': 'application/json', timestamp };
  const signature = opts.signature === undefined ? hmacSha256.sign({ timestamp, body }, SECRET) : opts.signature;
  if (signature !== null) headers.signature = signature;
  const res = await fetch(`${receiver.url}${opts.path ?? '/webhooks/payment'}`, {
    method: opts.method ?? 'POST',
    headers,
    body: opts.method === 'GET' ? undefined : body,
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const notification = (ref: string, merchantRef: string, patch: Record<string, string> = {}) =>
  JSON.stringify({
    transactionRef: ref,
    merchantRef,
    currency: 'NGN',
    method: 'TRANSFER',
    amount: '25000.00',
    paidAmount: '25000.00',
    fee: '370.00',
    status: 'Success',
    ...patch,
  });

describe("webhook receiver with the sandbox's real deliveries", () => {
  it('stores a notification once despite retries, confirms it by fetch, and updates the order', async () => {
    const p = await newPayment();
    dropAcks = 2; // stored twice over, acknowledgement lost twice: the provider retries
    await control.advanceClock(2000);
    await until(async () => (await control.stats()).webhooks.delivered >= 1);
    await queue.idle();

    const attempts = (await control.stats()).webhooks.attempts.filter((a) => a.transactionRef === p.transactionRef);
    expect(attempts.map((a) => a.acknowledged)).toEqual([false, false, true]);
    const events = await eventsOf(p.transactionRef);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      direction: 'payment',
      merchant_ref: p.merchantRef,
      deliveries: 3,
      confirmation: 'confirmed',
      status: 'Success',
      amount: '25000.00',
      paid_amount: '25000.00',
      fee: '370.00',
    });
    expect(Object.keys(events[0].headers).sort()).toEqual(['Content-Type', 'Signature', 'Timestamp']);
    expect(JSON.parse(events[0].raw_body)).toMatchObject({ transactionRef: p.transactionRef, status: 'Success' });
    const order = await orderOf(p.transactionRef);
    // Written from the fetch, which the client hands over as canonical decimal text.
    expect(order).toMatchObject({ status: 'Success', status_category: 'success', paid_amount: '25000', fee: '370', next_check_at: null });
    expect(order.finalized_at).toBeInstanceOf(Date);
  });

  it('a replayed notification is deduplicated and never applied twice', async () => {
    const p = await newPayment();
    await control.advanceClock(2000);
    await until(async () => (await eventsOf(p.transactionRef)).length === 1);
    await queue.idle();
    const before = await orderOf(p.transactionRef);
    const [event] = await eventsOf(p.transactionRef);
    // The attacker (or a confused proxy) resends the exact bytes with their original, still-valid Timestamp.
    const replay = await post(event.raw_body, { timestamp: event.headers.Timestamp, signature: event.headers.Signature });
    expect(replay).toEqual({ status: 200, type: 'text/plain; charset=utf-8', text: 'SUCCESS' });
    await queue.idle();
    const after = await eventsOf(p.transactionRef);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ deliveries: 2, confirmation: 'confirmed', confirmed_at: event.confirmed_at });
    expect((await orderOf(p.transactionRef)).updated_at).toEqual(before.updated_at);
  });

  it("the receiver down for a while, then up: the provider's retries arrive and nothing is lost", async () => {
    await receiver.close();
    const payments = await Promise.all([1, 2, 3, 4, 5].map(() => newPayment()));
    await control.advanceClock(2000);
    // A few attempts fail against the closed port.
    await until(
      async () => (await control.stats()).webhooks.attempts.filter((a) => !a.acknowledged && a.error && !a.httpStatus).length >= 10,
    );
    receiver = await startWebhookServer(handler(), { port: Number(new URL(receiver.url).port) });
    await until(async () => (await control.stats()).webhooks.queued === 0);
    await queue.idle();
    const stats = await control.stats();
    expect(stats.webhooks.gaveUp).toBe(0);
    for (const p of payments) {
      const events = await eventsOf(p.transactionRef);
      expect(events).toHaveLength(1);
      expect(events[0].confirmation).toBe('confirmed');
      expect((await orderOf(p.transactionRef)).status_category).toBe('success');
    }
  });

  describe('refusals store nothing', () => {
    let ref: string;
    let body: string;
    beforeAll(async () => {
      const p = await newPayment(); // still pending at the sandbox: nobody advances its clock here
      ref = p.transactionRef;
      body = notification(ref, p.merchantRef);
    });

    it.each([
      ['no Signature', () => post(body, { signature: null }), 401],
      ['a wrong signature', () => post(body, { signature: 'ab'.repeat(32) }), 401],
      [
        'a tampered body (signed paidAmount 25000, sent 99999)',
        () => {
          const timestamp = unixTimestamp(Date.now());
          return post(body.replace('"paidAmount":"25000.00"', '"paidAmount":"99999.00"'), {
            timestamp,
            signature: hmacSha256.sign({ timestamp, body }, SECRET),
          });
        },
        401,
      ],
      ['a stale Timestamp (16 minutes old)', () => post(body, { timestamp: unixTimestamp(Date.now() - 960_000) }), 403],
      ['a future Timestamp (10 minutes ahead)', () => post(body, { timestamp: unixTimestamp(Date.now() + 600_000) }), 403],
      ['malformed JSON', () => post(body.slice(0, -5)), 400],
      ['a missing field', () => post(JSON.stringify({ ...JSON.parse(body), status: undefined })), 400],
      ['an oversized body', () => post(body.replace('"status"', `"pad":"${'x'.repeat(5000)}","status"`)), 413],
      ['GET', () => post(body, { method: 'GET' }), 405],
      ['an unknown path', () => post(body, { path: '/webhooks/other' }), 404],
    ])('%s', async (_name, send, status) => {
      expect((await send()).status).toBe(status);
      expect(await eventsOf(ref)).toHaveLength(0);
    });

    it('an oversized chunked body is cut off without being buffered', async () => {
      const port = Number(new URL(receiver.url).port);
      const status = await new Promise<number | 'reset'>((resolve) => {
        const req = http.request({
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/webhooks/payment',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        req.on('response', (res) => resolve(res.statusCode!));
        req.on('error', () => resolve('reset'));
        // 1 MiB in 4 KiB chunks against a 4 KiB limit.
        const chunk = 'x'.repeat(4096);
        let n = 0;
        const write = () => {
          while (n < 256 && req.write(chunk)) n++;
          if (n < 256) req.once('drain', write);
          else req.end();
        };
        write();
      });
      expect([413, 'reset']).toContain(status);
      expect(await eventsOf(ref)).toHaveLength(0);
    });
  });

  it('a notification the fetch contradicts is a conflict: the order is not touched', async () => {
    const p = await newPayment(); // pending at the provider
    const res = await post(notification(p.transactionRef, p.merchantRef));
    expect(res.status).toBe(200);
    await queue.idle();
    const [event] = await eventsOf(p.transactionRef);
    expect(event.confirmation).toBe('conflict');
    expect(event.confirmation_note).toMatch(/status: notified Success \(success\), provider says Pending \(pending\)/);
    expect(await orderOf(p.transactionRef)).toMatchObject({ status: 'Initiated', status_category: 'pending', finalized_at: null });
  });

  it('a notification for an order the provider does not know is a conflict', async () => {
    const ref = '11111111-2222-4333-8444-555555555555';
    expect((await post(notification(ref, 'nobody'))).status).toBe(200);
    await queue.idle();
    expect((await eventsOf(ref))[0]).toMatchObject({ confirmation: 'conflict', confirmation_note: expect.stringMatching(/does not know/) });
  });

  it('payout notifications: stored raw, confirmed by payout fetch when a transactionRef is there', async () => {
    const raw = '{"transactionRef":"no-such-payout","status":"Success","bankReply":{"code":"00"}}';
    expect((await post(raw, { path: '/webhooks/payout' })).status).toBe(200);
    const noRef = '{"orderNo":"X1","state":"done"}';
    expect((await post(noRef, { path: '/webhooks/payout' })).status).toBe(200);
    await queue.idle();
    const rows = await t.db.knex('webhook_events').where({ direction: 'payout' }).orderBy('id');
    expect(rows.map((r) => [r.raw_body, r.confirmation])).toEqual([
      [raw, 'conflict'],
      [noRef, 'error'],
    ]);
  });
});

describe('crash safety and findings', () => {
  it('confirmPendingWebhooks confirms what was stored but never confirmed, and retries after a provider outage', async () => {
    const p = await newPayment();
    await control.advanceClock(2000);
    await until(async () => (await eventsOf(p.transactionRef)).length === 1);
    await queue.idle();
    // Simulate a crash between store and confirmation: put the event back to pending, the order back to Initiated.
    await t.db
      .knex('webhook_events')
      .where({ transaction_ref: p.transactionRef })
      .update({ confirmation: 'pending', confirmed_at: null, confirmation_note: null });
    await t.db
      .knex('payment_orders')
      .where({ transaction_ref: p.transactionRef })
      .update({ status: 'Initiated', status_category: 'pending', paid_amount: null, fee: null, finalized_at: null });

    await control.addFault({ kind: 'status500', operations: ['paymentFetch'] });
    const down = await confirmPendingWebhooks({ db: t.db, client, concurrency: 2 });
    expect(down.retry).toBeGreaterThanOrEqual(1);
    expect((await eventsOf(p.transactionRef))[0]).toMatchObject({
      confirmation: 'pending',
      confirmation_note: expect.stringMatching(/will retry/),
    });
    expect((await orderOf(p.transactionRef)).status_category).toBe('pending');

    await control.clearFaults();
    const up = await confirmPendingWebhooks({ db: t.db, client, concurrency: 2 });
    expect(up).toMatchObject({ retry: 0 });
    expect(up.confirmed).toBeGreaterThanOrEqual(1);
    expect((await eventsOf(p.transactionRef))[0].confirmation).toBe('confirmed');
    expect(await orderOf(p.transactionRef)).toMatchObject({ status: 'Success', paid_amount: '25000' });
  });
});
