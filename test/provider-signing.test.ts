import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../src/provider/client.ts';
import { hmacSha256, loadSigningScheme, md5Sorted, verifySignature, type SigningScheme } from '../src/provider/signing.ts';

/** A server that records each request and answers a fixed balance, to see what the client really sends. */
let server: http.Server;
let baseUrl: string;
const seen: { headers: http.IncomingHttpHeaders; body: string; url: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '' });
      res.setHeader('content-type', 'application/json');
      res.end(
        '{"code":"200","message":"SUCCESS","data":{"transactionRef":"t","merchantRef":"11111111-1111-4111-8111-111111111111","currency":"IDR","method":"TRANSFER","amount":12345678901234.56,"fee":"0.10","status":"Initiated"}}',
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gw`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const payout = {
  merchantRef: '11111111-1111-4111-8111-111111111111',
  currency: 'IDR' as const,
  method: 'TRANSFER',
  bankCode: '014',
  amount: '12345678901234.56',
  name: 'Budi Ünal',
  account: '0012345678',
  phone: '+6281234567',
  email: 'b@example.com',
};

async function sendWith(scheme: SigningScheme) {
  const client = new ProviderClient({ baseUrl, merchantId: 'm-42', secret: 'k-secret', scheme, now: () => 1_714_521_600_123 });
  try {
    const res = await client.initiatePayout(payout);
    return { res, req: seen[seen.length - 1] };
  } finally {
    await client.close();
  }
}

describe('signed requests', () => {
  it('sends the headers, the amount as an exact JSON number, and an HMAC over the exact bytes', async () => {
    const { res, req } = await sendWith(hmacSha256);
    expect(req.url).toBe('/gw/v1/api/payout/initiate');
    expect(req.body).toContain('"amount":12345678901234.56');
    expect(req.headers['merchantid']).toBe('m-42');
    expect(req.headers['timestamp']).toBe('1714521600');
    expect(req.headers['content-type']).toBe('application/json');
    const expected = crypto.createHmac('sha256', 'k-secret').update(`1714521600.${req.body}`).digest('hex');
    expect(req.headers['signature']).toBe(expected);
    expect(res).toMatchObject({ amount: '12345678901234.56', fee: '0.1', status: 'Initiated', category: 'pending' });
  });

  it('signs md5-sorted over the sorted fields with the amount text as sent', async () => {
    const { req } = await sendWith(md5Sorted);
    const plain =
      'account=0012345678&amount=12345678901234.56&bankCode=014&currency=IDR&email=b@example.com&merchantRef=11111111-1111-4111-8111-111111111111&method=TRANSFER&name=Budi Ünal&phone=+6281234567&key=k-secret';
    expect(req.headers['signature']).toBe(crypto.createHash('md5').update(plain).digest('hex').toUpperCase());
    expect(verifySignature(md5Sorted, { timestamp: '1714521600', body: req.body }, 'k-secret', req.headers['signature'] as string)).toBe(
      true,
    );
  });

  it('loads a merchant module scheme and signs with it, MerchantID included', async () => {
    const scheme = await loadSigningScheme(`module:${path.join('test', 'fixtures', 'provider-custom-scheme.ts')}`);
    expect(scheme.name).toBe('custom-sha512');
    const { req } = await sendWith(scheme);
    const expected = crypto.createHmac('sha512', 'k-secret').update(`m-42|1714521600|${req.body}`).digest('base64');
    expect(req.headers['signature']).toBe(expected);
  });

  it('re-signs every attempt with a fresh Timestamp', async () => {
    let now = 1_714_521_600_000;
    const client = new ProviderClient({ baseUrl, merchantId: 'm', secret: 'k-secret', scheme: hmacSha256, now: () => (now += 5000) });
    try {
      await client.initiatePayout(payout);
      await client.initiatePayout(payout);
    } finally {
      await client.close();
    }
    const [a, b] = seen.slice(-2);
    expect(Number(b.headers['timestamp']) - Number(a.headers['timestamp'])).toBe(5);
    expect(a.headers['signature']).not.toBe(b.headers['signature']);
  });
});
