import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { hmacSha256, unixTimestamp } from '../src/provider/signing.ts';
import { API_PREFIX, PATHS } from '../src/provider/types.ts';
import { parseLossless, stringifyBody } from '../src/provider/json.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { signedPost } from './helpers/signed-post.ts';

let sb: Sandbox;
let control: SandboxControl;
let refA: string;
let refB: string;
const creds = () => ({ baseUrl: sb.url, merchantId: 'demo-merchant', secret: 'demo-secret' });
const fetchA = (ref = refA) => signedPost(creds(), PATHS.paymentFetch, JSON.stringify({ transactionRef: ref }));
const data = (text: string) => (parseLossless(text) as { data: Record<string, string> }).data;

const initiate = async (merchantRef: string) => {
  const res = await signedPost(
    creds(),
    PATHS.paymentInitiate,
    stringifyBody({
      merchantRef,
      currency: 'IDR',
      method: 'BNI',
      amount: '150000',
      name: 'Budi',
      phone: '+628123456789',
      email: 'budi@example.com',
      redirectUrl: 'https://shop.example.com/done',
    }),
  );
  return res;
};

beforeAll(async () => {
  sb = await startSandbox();
  control = new SandboxControl(sb.url);
  refA = data((await initiate('fault-a')).text).transactionRef;
  refB = data((await initiate('fault-b')).text).transactionRef;
});
afterAll(() => sb.close());
beforeEach(() => control.clearFaults());

/** Adds a one-shot fault on payment fetch, and checks the request after it is answered normally. */
async function once(fault: Parameters<SandboxControl['addFault']>[0]) {
  await control.addFault({ operations: ['paymentFetch'], count: 1, ...fault });
}
async function expectNormalAfter() {
  const res = await fetchA();
  expect(res.status).toBe(200);
  expect(data(res.text).transactionRef).toBe(refA);
}

describe('sandbox faults', () => {
  it('latency delays the answer; global latency too', async () => {
    await once({ kind: 'latency', latencyMs: 250 });
    let t = performance.now();
    expect((await fetchA()).status).toBe(200);
    expect(performance.now() - t).toBeGreaterThanOrEqual(240);
    await control.setLatency(150);
    t = performance.now();
    await signedPost(creds(), PATHS.balance, '{"currency":"INR"}');
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
    await control.setLatency(0);
  });

  it('status 500, 401, 403 with JSON bodies', async () => {
    for (const [kind, status] of [
      ['status500', 500],
      ['status401', 401],
      ['status403', 403],
    ] as const) {
      await once({ kind });
      const res = await fetchA();
      expect(res.status).toBe(status);
      expect(JSON.parse(res.text).code).toBe(String(status));
    }
    await expectNormalAfter();
  });

  it('429 with and without Retry-After', async () => {
    await once({ kind: 'status429', retryAfterSec: 3 });
    const a = await fetchA();
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('3');
    await once({ kind: 'status429' });
    const b = await fetchA();
    expect(b.status).toBe(429);
    expect(b.headers['retry-after']).toBeUndefined();
    await expectNormalAfter();
  });

  it('timeout: accepted and never answered', async () => {
    await once({ kind: 'timeout' });
    const agent = new Agent({ headersTimeout: 300 });
    await expect(
      signedPost({ ...creds(), dispatcher: agent }, PATHS.paymentFetch, JSON.stringify({ transactionRef: refA })),
    ).rejects.toThrow(/timeout/i);
    await agent.close();
    await expectNormalAfter();
  });

  it('connection reset', async () => {
    await once({ kind: 'reset' });
    await expect(fetchA()).rejects.toThrow();
    await expectNormalAfter();
  });

  it('malformed JSON, and an HTML error page', async () => {
    await once({ kind: 'malformedJson' });
    const bad = await fetchA();
    expect(bad.status).toBe(200);
    expect(bad.headers['content-type']).toBe('application/json');
    expect(() => JSON.parse(bad.text)).toThrow();
    await once({ kind: 'htmlError' });
    const html = await fetchA();
    expect(html.status).toBe(502);
    expect(html.headers['content-type']).toBe('text/html');
    expect(html.text).toContain('<html>');
    await expectNormalAfter();
  });

  it('huge body: tens of MB, streamed', async () => {
    await once({ kind: 'hugeBody', bytes: 20 * 1024 * 1024 });
    const ts = unixTimestamp(Date.now());
    const body = JSON.stringify({ transactionRef: refA });
    const res = await request(`${sb.url}${API_PREFIX}${PATHS.paymentFetch}`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        MerchantID: 'demo-merchant',
        Timestamp: ts,
        Signature: hmacSha256.sign({ timestamp: ts, body }, 'demo-secret'),
      },
    });
    expect(res.headers['content-length']).toBeUndefined();
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    expect(bytes).toBe(20 * 1024 * 1024);
    await expectNormalAfter();
  });

  it('unknown status, missing field, wrong field type', async () => {
    await once({ kind: 'unknownStatus', statusText: 'UnderReview' });
    expect(data((await fetchA()).text).status).toBe('UnderReview');
    await once({ kind: 'missingField', field: 'paidAmount' });
    expect(data((await fetchA()).text)).not.toHaveProperty('paidAmount');
    await once({ kind: 'wrongFieldType' });
    const text = (await fetchA()).text;
    expect(text).toContain('"amount":"150000"');
    await once({ kind: 'wrongFieldType', field: 'status' });
    expect((await fetchA()).text).toContain('"status":12345');
    await expectNormalAfter();
  });

  it('answer for a different transactionRef', async () => {
    await once({ kind: 'wrongTransactionRef' });
    const d = data((await fetchA()).text);
    expect(d.transactionRef).toBe(refB);
    expect(d.merchantRef).toBe('fault-b');
    await expectNormalAfter();
  });

  it('targets chosen transactionRefs and operations, and counts down', async () => {
    await control.addFault({ kind: 'status500', transactionRefs: [refB], count: 2 });
    expect((await fetchA()).status).toBe(200);
    expect((await signedPost(creds(), PATHS.balance, '{"currency":"INR"}')).status).toBe(200);
    expect((await fetchA(refB)).status).toBe(500);
    expect((await control.listFaults())[0].remaining).toBe(1);
    expect((await fetchA(refB)).status).toBe(500);
    expect((await fetchA(refB)).status).toBe(200);
    expect(await control.listFaults()).toEqual([]);
  });

  it('afterProcessing: the initiate lands although its answer is a 500', async () => {
    await control.addFault({ kind: 'status500', operations: ['paymentInitiate'], count: 1, afterProcessing: true });
    expect((await initiate('fault-landed')).status).toBe(500);
    const again = parseLossless((await initiate('fault-landed')).text) as { code: string; message: string };
    expect(again.code).toBe('400');
    expect(again.message).toContain('DUPLICATE_ORDER');
  });

  it('rejects an unknown fault kind', async () => {
    await expect(control.addFault({ kind: 'gremlins' as 'reset' })).rejects.toThrow(/unknown fault kind/);
  });
});
