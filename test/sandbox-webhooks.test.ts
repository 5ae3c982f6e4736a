import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { stringifyBody } from '../src/provider/json.ts';
import { hmacSha256, verifySignature } from '../src/provider/signing.ts';
import { PATHS } from '../src/provider/types.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { signedPost } from './helpers/signed-post.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A merchant webhook receiver whose answer depends on the attempt number. */
async function receiver(answer: (n: number) => { status: number; type: string; body: string }) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      const a = answer(got.length);
      res.writeHead(a.status, { 'content-type': a.type });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => new Promise((r) => server.close(r)) };
}

const until = async (cond: () => boolean | Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

const payment = (merchantRef: string) =>
  stringifyBody({
    merchantRef,
    currency: 'NGN',
    method: 'TRANSFER',
    amount: '25000.00',
    name: 'Ada Obi',
    phone: '+2348012345678',
    email: 'ada@example.com',
    redirectUrl: 'https://shop.example.com/done',
  });

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function sandboxFor(url: string, maxAttempts = 10): Promise<Sandbox> {
  return startSandbox({
    webhookUrl: url,
    webhookIntervalMs: 50,
    webhookMaxAttempts: maxAttempts,
    lifecycle: { paymentDelayMs: { min: 0, max: 0 }, paymentFailedShare: 0, paymentPartialShare: 0, paymentStuckShare: 0 },
  });
}

describe('sandbox payment webhook', () => {
  it('retries until the receiver answers 200 text/plain SUCCESS, signed, every value a string', async () => {
    // 1: server error; 2: 200 but JSON, not the agreed acknowledgement; 3: the real acknowledgement.
    const r = await receiver((n) =>
      n === 1
        ? { status: 500, type: 'text/plain', body: 'oops' }
        : n === 2
          ? { status: 200, type: 'application/json', body: 'SUCCESS' }
          : { status: 200, type: 'text/plain', body: 'SUCCESS' },
    );
    cleanup.push(r.close);
    const sb = await sandboxFor(r.url);
    cleanup.push(() => sb.close());
    const init = await signedPost(
      { baseUrl: sb.url, merchantId: 'demo-merchant', secret: 'demo-secret' },
      PATHS.paymentInitiate,
      payment('wh-1'),
    );
    const transactionRef = JSON.parse(init.text.replace(/"amount":([\d.]+)/, '"amount":"$1"')).data.transactionRef;

    const control = new SandboxControl(sb.url);
    await until(async () => (await control.stats()).webhooks.delivered === 1);
    expect(r.got).toHaveLength(3);
    const first = r.got[0];
    expect(first.headers['merchantid']).toBeUndefined();
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['timestamp']).toMatch(/^\d{10}$/);
    expect(
      verifySignature(
        hmacSha256,
        { timestamp: String(first.headers['timestamp']), body: first.body },
        'demo-secret',
        String(first.headers['signature']),
      ),
    ).toBe(true);
    expect(JSON.parse(first.body)).toEqual({
      transactionRef,
      merchantRef: 'wh-1',
      currency: 'NGN',
      method: 'TRANSFER',
      amount: '25000.00',
      paidAmount: '25000.00',
      fee: '370.00',
      status: 'Success',
    });
    const stats = await control.stats();
    expect(stats.webhooks.attempts.map((a) => [a.attempt, a.httpStatus, a.acknowledged])).toEqual([
      [1, 500, false],
      [2, 200, false],
      [3, 200, true],
    ]);
    expect(stats.webhooks.attempts[1].at - stats.webhooks.attempts[0].at).toBeGreaterThanOrEqual(50);
    expect(stats.webhooks.queued).toBe(0);
  });

  it('gives up after webhookMaxAttempts attempts in total', async () => {
    const r = await receiver(() => ({ status: 503, type: 'text/plain', body: 'down' }));
    cleanup.push(r.close);
    const sb = await sandboxFor(r.url, 3);
    cleanup.push(() => sb.close());
    await signedPost({ baseUrl: sb.url, merchantId: 'demo-merchant', secret: 'demo-secret' }, PATHS.paymentInitiate, payment('wh-2'));
    const control = new SandboxControl(sb.url);
    await until(async () => (await control.stats()).webhooks.gaveUp === 1);
    // Giving up is counted after the last attempt's answer: every attempt has arrived by now, and none follows.
    expect(r.got).toHaveLength(3);
    expect((await control.stats()).webhooks.attempts).toHaveLength(3);
  });

  it('sends nothing without a URL; a URL set through control applies to later finals', async () => {
    const r = await receiver(() => ({ status: 200, type: 'text/plain; charset=utf-8', body: 'SUCCESS' }));
    cleanup.push(r.close);
    const sb = await startSandbox({
      webhookIntervalMs: 50,
      lifecycle: { paymentDelayMs: { min: 1000, max: 1000 }, paymentFailedShare: 1 },
    });
    cleanup.push(() => sb.close());
    const control = new SandboxControl(sb.url);
    const creds = { baseUrl: sb.url, merchantId: 'demo-merchant', secret: 'demo-secret' };
    await signedPost(creds, PATHS.paymentInitiate, payment('wh-3'));
    await control.advanceClock(2000);
    expect((await control.stats()).webhooks.attempts).toHaveLength(0);
    await control.setWebhookUrl(r.url);
    await signedPost(creds, PATHS.paymentInitiate, payment('wh-4'));
    await control.advanceClock(2000);
    await until(async () => (await control.stats()).webhooks.delivered === 1);
    // Failed payments are final too, so they are notified.
    expect(JSON.parse(r.got[0].body)).toMatchObject({ merchantRef: 'wh-4', status: 'Failed', paidAmount: '0.00' });
  });
});
