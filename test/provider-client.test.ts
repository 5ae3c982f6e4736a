import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { ProviderClient, type ProviderClientOptions } from '../src/provider/client.ts';
import { CredentialsError, OrderNotFoundError, ProviderResponseError, ProviderUnavailableError } from '../src/provider/errors.ts';
import { hmacSha256, md5Sorted } from '../src/provider/signing.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import type { Operation } from '../src/provider/types.ts';

/** The client against the real sandbox over HTTP: every operation and every injected fault. */
let sandbox: Sandbox;
let control: SandboxControl;
const clients: ProviderClient[] = [];
const MERCHANT = { id: 'm-test', secret: 'sandbox-secret-1' };

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, merchants: [MERCHANT], seed: 7 });
  control = new SandboxControl(sandbox.url);
});
afterEach(async () => {
  await control.reset();
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => sandbox.close());

function client(opts: Partial<ProviderClientOptions> = {}): ProviderClient {
  const c = new ProviderClient({
    baseUrl: sandbox.url,
    merchantId: MERCHANT.id,
    secret: MERCHANT.secret,
    scheme: hmacSha256,
    retryBaseMs: 5,
    maxRetries: 2,
    timeoutMs: 2000,
    concurrency: 4,
    ...opts,
  });
  clients.push(c);
  return c;
}

async function requests(op: Operation): Promise<number> {
  return (await control.stats()).requests[op];
}

const payment = () => ({
  merchantRef: randomUUID(),
  currency: 'NGN' as const,
  method: 'TRANSFER',
  amount: '1500.25',
  name: 'Ada Obi',
  phone: '+2348012345678',
  email: 'ada@example.com',
  redirectUrl: 'https://shop.example.com/done',
});

async function newPaymentRef(c: ProviderClient): Promise<string> {
  return (await c.initiatePayment(payment())).transactionRef;
}

describe('every operation', () => {
  it('initiates and fetches a payment', async () => {
    const c = client();
    const req = payment();
    const init = await c.initiatePayment(req);
    expect(init).toMatchObject({ merchantRef: req.merchantRef, currency: 'NGN', method: 'TRANSFER', amount: '1500.25' });
    expect(init.checkoutUrl).toMatch(/^http/);
    const fetched = await c.fetchPayment(init.transactionRef);
    expect(fetched).toMatchObject({ transactionRef: init.transactionRef, amount: '1500.25', status: 'Pending', category: 'pending' });
    expect(typeof fetched.paidAmount).toBe('string');
  });

  it('keeps a 14-digit amount exact end to end and sums in decimal', async () => {
    const c = client();
    const ref = await newPaymentRef(c);
    await control.setOrder(ref, { status: 'Success', amount: '12345678901234.56', paidAmount: '0.1', fee: '0.2' });
    const p = await c.fetchPayment(ref);
    expect(p).toMatchObject({ amount: '12345678901234.56', status: 'Success', category: 'success' });
    expect(new Decimal(p.paidAmount).plus(p.fee).toFixed()).toBe('0.3');
  });

  it('lists bank codes, initiates and fetches an NGN payout and an INR payout with a UTR field', async () => {
    const c = client({ scheme: md5Sorted });
    const s2 = await startSandbox({ port: 0, merchants: [MERCHANT], signature: md5Sorted });
    try {
      const md5 = client({ baseUrl: s2.url, scheme: md5Sorted });
      const banks = await md5.bankCodes('NGN');
      expect(banks.length).toBeGreaterThan(0);
      const bank = banks[0];
      const payout = await md5.initiatePayout({
        merchantRef: randomUUID(),
        currency: 'NGN',
        method: 'BANK',
        bankCode: bank.bankCode,
        amount: '2500.5',
        name: 'Chidi',
        account: '0123456789',
        phone: '+2348012345678',
        email: 'c@example.com',
      });
      expect(payout).toMatchObject({ amount: '2500.5', status: 'Initiated', category: 'pending' });
      expect(payout.fee).toMatch(/^\d+(\.\d+)?$/);
      const fetched = await md5.fetchPayout(payout.transactionRef);
      expect(fetched).toMatchObject({ transactionRef: payout.transactionRef, category: 'pending' });
      expect(fetched.utr).toBeUndefined();
      const inr = await md5.initiatePayout({
        merchantRef: randomUUID(),
        currency: 'INR',
        method: 'IFSC',
        bankCode: 'HDFC0001234',
        amount: '100',
        name: 'Asha',
        account: '123456789012',
        phone: '+919812345678',
        email: 'a@example.com',
      });
      expect((await md5.fetchPayout(inr.transactionRef)).utr).toBe('');
    } finally {
      await s2.close();
    }
    // The md5 client against the hmac sandbox is refused: the scheme really matters.
    await expect(c.balance('INR')).rejects.toBeInstanceOf(CredentialsError);
  });

  it('returns IDR bank codes, balances and USDT rates as decimal text', async () => {
    const c = client();
    const idr = await c.bankCodes('IDR');
    expect(idr.every((b) => /^\d{2,6}$/.test(b.bankCode) && b.bankName.length > 0)).toBe(true);
    for (const cur of ['INR', 'NGN', 'IDR'] as const) {
      const b = await c.balance(cur);
      expect(b.currency).toBe(cur);
      for (const k of ['available', 'pending', 'held', 'credit'] as const) expect(b[k]).toMatch(/^-?\d+(\.\d+)?$/);
      const r = await c.usdtRate(cur);
      expect(r.deposit).toMatch(/^\d+(\.\d+)?$/);
      expect(r.withdraw).toMatch(/^\d+(\.\d+)?$/);
    }
  });
});

describe('credentials', () => {
  it('missing MerchantID is 401, unknown merchant and wrong secret are 403, none retried', async () => {
    for (const [opts, status] of [
      [{ merchantId: '' }, 401],
      [{ merchantId: 'nobody' }, 403],
      [{ secret: 'wrong-secret' }, 403],
    ] as const) {
      await control.reset();
      const err = await client({ ...opts, maxRetries: 3 })
        .balance('NGN')
        .catch((e) => e);
      expect(err).toBeInstanceOf(CredentialsError);
      expect(err.detail.httpStatus).toBe(status);
      expect(err.message).not.toContain('wrong-secret');
      expect(await requests('balance')).toBe(1);
    }
  });

  it('a stale Timestamp from the injected clock is refused', async () => {
    const err = await client({ now: () => Date.now() - 3_600_000 })
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(CredentialsError);
  });

  it('an injected 401 or 403 fails at once although the next attempt would succeed', async () => {
    for (const kind of ['status401', 'status403'] as const) {
      await control.addFault({ kind, count: 1 });
      await expect(client({ maxRetries: 3 }).usdtRate('INR')).rejects.toBeInstanceOf(CredentialsError);
    }
  });
});

describe('retries', () => {
  it('500 then success', async () => {
    const c = client();
    const ref = await newPaymentRef(c);
    await control.addFault({ kind: 'status500', operations: ['paymentFetch'], count: 1 });
    await expect(c.fetchPayment(ref)).resolves.toMatchObject({ transactionRef: ref });
    expect(await requests('paymentFetch')).toBe(2);
  });

  it('a lost initiate answer (500 after processing) is not re-sent', async () => {
    await control.addFault({ kind: 'status500', operations: ['paymentInitiate'], afterProcessing: true, count: 1 });
    const err = await client()
      .initiatePayment(payment())
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.detail).toMatchObject({ outcomeUnknown: true, attempts: 1 });
    expect((await control.stats()).orders.payments).toBe(1);
  });

  it('times out a held request, retries, and succeeds; gives up when it persists', async () => {
    await control.addFault({ kind: 'timeout', operations: ['balance'], count: 1 });
    await expect(client({ timeoutMs: 300 }).balance('IDR')).resolves.toMatchObject({ currency: 'IDR' });
    await control.addFault({ kind: 'timeout', operations: ['balance'] });
    const started = Date.now();
    const err = await client({ timeoutMs: 200, maxRetries: 1 })
      .balance('IDR')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.message).toBe('balance: no complete answer within 200 ms (timeout)');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('retries a connection reset', async () => {
    await control.addFault({ kind: 'reset', operations: ['usdtRate'], count: 2 });
    await expect(client().usdtRate('NGN')).resolves.toMatchObject({ currency: 'NGN' });
    await control.addFault({ kind: 'reset', operations: ['usdtRate'] });
    const err = await client()
      .usdtRate('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.detail.attempts).toBe(3);
  });

  it('honours Retry-After on 429', async () => {
    await control.addFault({ kind: 'status429', retryAfterSec: 1, count: 1 });
    const started = Date.now();
    await expect(client().balance('INR')).resolves.toMatchObject({ currency: 'INR' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    // A 429 is a refusal, not a failure: retried beyond maxRetries until maxThrottledMs of waiting is spent.
    await control.addFault({ kind: 'status429' });
    const err = await client({ maxThrottledMs: 100 })
      .balance('INR')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.detail.httpStatus).toBe(429);
    expect(err.detail.attempts).toBeGreaterThan(3);
  });
});

describe('strange answers', () => {
  it('malformed JSON', async () => {
    await control.addFault({ kind: 'malformedJson', operations: ['balance'] });
    const err = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toMatch(/^balance: body is not valid JSON/);
    expect(await requests('balance')).toBe(1);
  });

  it('an HTML page with 200 is a response error; an HTML 502 is retried then unavailable', async () => {
    await control.addFault({ kind: 'htmlError', httpStatus: 200, count: 1 });
    const err = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toContain('received an HTML page (HTTP 200)');
    await control.addFault({ kind: 'htmlError' });
    const err502 = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err502).toBeInstanceOf(ProviderUnavailableError);
    expect(err502.message).toContain('HTTP 502');
    expect(err502.message).toContain('Bad Gateway');
  });

  it('a huge body is rejected after the cap without buffering it', async () => {
    await control.addFault({ kind: 'hugeBody', bytes: 64 * 1024 * 1024, count: 1 });
    const before = process.memoryUsage().arrayBuffers;
    const err = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toContain('exceeds the 1048576-byte limit');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('an unknown status maps to category unknown', async () => {
    const c = client();
    const ref = await newPaymentRef(c);
    await control.addFault({ kind: 'unknownStatus', statusText: 'Settling', count: 1 });
    expect(await c.fetchPayment(ref)).toMatchObject({ status: 'Settling', category: 'unknown' });
  });

  it('an answer for another transactionRef is an error', async () => {
    const c = client();
    const ref = await newPaymentRef(c);
    await newPaymentRef(c);
    await control.addFault({ kind: 'wrongTransactionRef', operations: ['paymentFetch'], count: 1 });
    const err = await c.fetchPayment(ref).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toContain(`field "data.transactionRef": answer is for`);
    expect(err.message).toContain(`but "${ref}" was asked`);
  });

  it('missing and mistyped fields are named', async () => {
    const c = client();
    const ref = await newPaymentRef(c);
    await control.addFault({ kind: 'missingField', field: 'status', count: 1 });
    expect((await c.fetchPayment(ref).catch((e) => e)).message).toBe(
      'paymentFetch: field "data.status": expected a string, received nothing',
    );
    await control.addFault({ kind: 'wrongFieldType', field: 'merchantRef', count: 1 });
    expect((await c.fetchPayment(ref).catch((e) => e)).message).toBe(
      'paymentFetch: field "data.merchantRef": expected a string, received 12345',
    );
  });

  it('an unknown or deleted transactionRef is OrderNotFoundError', async () => {
    const c = client();
    const missing = randomUUID();
    const err = await c.fetchPayout(missing).catch((e) => e);
    expect(err).toBeInstanceOf(OrderNotFoundError);
    expect(err.transactionRef).toBe(missing);
    expect(err.detail.code).toBe('404');
    const ref = await newPaymentRef(c);
    expect(await control.deleteOrder(ref)).toBe(true);
    await expect(c.fetchPayment(ref)).rejects.toBeInstanceOf(OrderNotFoundError);
  });
});
