import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { parseLossless, stringifyBody } from '../src/provider/json.ts';
import { hmacSha256, md5Sorted, unixTimestamp } from '../src/provider/signing.ts';
import { API_PREFIX, PATHS } from '../src/provider/types.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/server.ts';
import { signedPost } from './helpers/signed-post.ts';

const MERCHANT = { merchantId: 'demo-merchant', secret: 'demo-secret' };
type Balance = { available: string; pending: string; held: string };
type Bank = { bankCode: string; bankName: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies of many shapes, asserted field by field
type Envelope = { code: string; message: string; data: any };

async function call(sb: Sandbox, path: string, body: Record<string, unknown>, opts: Partial<Parameters<typeof signedPost>[0]> = {}) {
  const res = await signedPost({ baseUrl: sb.url, ...MERCHANT, ...opts }, path, stringifyBody(body));
  return { ...res, json: parseLossless(res.text) as Envelope };
}

let n = 0;
const ref = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const payment = (over: Record<string, unknown> = {}) => ({
  merchantRef: ref(),
  currency: 'INR',
  method: 'NATIVE',
  amount: '1000.50',
  name: 'Asha Rao',
  phone: '+919876543210',
  email: 'asha@example.com',
  redirectUrl: 'https://shop.example.com/done',
  ...over,
});
const payout = (over: Record<string, unknown> = {}) => ({
  merchantRef: ref(),
  currency: 'INR',
  method: 'IFSC',
  bankCode: 'HDFC0001234',
  amount: '2500.75',
  name: 'Ravi Kumar',
  account: '50100012345678',
  phone: '+919812345678',
  email: 'ravi@example.com',
  ...over,
});
const total = (b: Balance) => new Decimal(b.available).plus(b.pending).plus(b.held);

/** A sandbox with forced outcomes: every payment/payout final after exactly 1 s unless told otherwise. */
function sandbox(extra: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({
    ...extra,
    lifecycle: {
      paymentDelayMs: { min: 1000, max: 1000 },
      payoutDelayMs: { min: 1000, max: 1000 },
      paymentFailedShare: 0,
      paymentPartialShare: 0,
      paymentStuckShare: 0,
      payoutFailedShare: 0,
      payoutStuckShare: 0,
      utrMissingShare: 0,
      ...extra.lifecycle,
    },
  });
}

describe('sandbox operations', () => {
  let sb: Sandbox;
  let control: SandboxControl;
  beforeAll(async () => {
    sb = await sandbox();
    control = new SandboxControl(sb.url);
  });
  afterAll(() => sb.close());

  it('payment initiate then fetch: envelope, field names, amounts as exact JSON numbers', async () => {
    const req = payment({ amount: '1000.50' });
    const init = await call(sb, PATHS.paymentInitiate, req);
    expect(init.status).toBe(200);
    expect(init.json.code).toBe('200');
    expect(init.json.message).toBe('SUCCESS');
    expect(Object.keys(init.json.data)).toEqual(['transactionRef', 'merchantRef', 'currency', 'method', 'amount', 'checkoutUrl']);
    expect(init.json.data.transactionRef).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(init.text).toContain('"amount":1000.50');
    expect(init.json.data.checkoutUrl).toBe(`${sb.url}/checkout/${init.json.data.transactionRef}`);

    const fetched = await call(sb, PATHS.paymentFetch, { transactionRef: init.json.data.transactionRef });
    expect(Object.keys(fetched.json.data)).toEqual([
      'transactionRef',
      'merchantRef',
      'currency',
      'method',
      'amount',
      'paidAmount',
      'fee',
      'status',
    ]);
    expect(fetched.json.data).toMatchObject({
      merchantRef: req.merchantRef,
      currency: 'INR',
      method: 'NATIVE',
      amount: '1000.50',
      status: 'Pending',
    });
    expect(fetched.text).toMatch(/"paidAmount":0\.00,"fee":0\.00/);
  });

  it('payout initiate returns Initiated with a fee; INR fetch carries utr', async () => {
    const init = await call(sb, PATHS.payoutInitiate, payout({ amount: '2500.75' }));
    expect(Object.keys(init.json.data)).toEqual(['transactionRef', 'merchantRef', 'currency', 'method', 'amount', 'fee', 'status']);
    // INR payout fee: 0.5% + 5.00 = 12.50375 + 5 -> 17.50
    expect(init.json.data).toMatchObject({ status: 'Initiated', fee: '17.50', amount: '2500.75' });
    const fetched = await call(sb, PATHS.payoutFetch, { transactionRef: init.json.data.transactionRef });
    expect(Object.keys(fetched.json.data)).toEqual([
      'transactionRef',
      'merchantRef',
      'utr',
      'currency',
      'method',
      'amount',
      'fee',
      'status',
    ]);
    expect(fetched.json.data.utr).toBe('');
    const ngn = await call(sb, PATHS.payoutInitiate, payout({ currency: 'NGN', method: 'BANK', bankCode: '058', amount: '15000' }));
    const ngnFetched = await call(sb, PATHS.payoutFetch, { transactionRef: ngn.json.data.transactionRef });
    expect(ngnFetched.json.data).not.toHaveProperty('utr');
    expect(ngnFetched.json.data.fee).toBe('50.00');
  });

  it('unknown transactionRef, or one of the other direction, is HTTP 200 code 404 ORDER_NOT_FOUND', async () => {
    const missing = await call(sb, PATHS.paymentFetch, { transactionRef: 'no-such-ref' });
    expect(missing.status).toBe(200);
    expect(missing.json).toEqual({ code: '404', message: 'ORDER_NOT_FOUND', data: null });
    const po = await call(sb, PATHS.payoutInitiate, payout());
    const crossed = await call(sb, PATHS.paymentFetch, { transactionRef: po.json.data.transactionRef });
    expect(crossed.json.code).toBe('404');
  });

  it('bank codes: realistic lists of 30+ entries, 2-6 digits; INR refused', async () => {
    for (const currency of ['IDR', 'NGN']) {
      const r = await call(sb, PATHS.bankCodes, { currency });
      expect(r.json.code).toBe('200');
      expect(r.json.data.length).toBeGreaterThanOrEqual(30);
      for (const b of r.json.data) expect(b.bankCode).toMatch(/^\d{2,6}$/);
    }
    const idr = await call(sb, PATHS.bankCodes, { currency: 'IDR' });
    expect(idr.json.data).toContainEqual({ bankCode: '014', bankName: 'Bank Central Asia (BCA)' });
    expect(idr.json.data.map((b: Bank) => b.bankName)).toEqual(expect.arrayContaining(['OVO', 'DANA', 'GoPay']));
    const ngn = await call(sb, PATHS.bankCodes, { currency: 'NGN' });
    expect(ngn.json.data).toContainEqual({ bankCode: '058', bankName: 'Guaranty Trust Bank' });
    const inr = await call(sb, PATHS.bankCodes, { currency: 'INR' });
    expect(inr.json.code).toBe('400');
    expect(inr.json.message).toContain('currency');
  });

  it('bank list changes through control are visible and enforced on payout initiate', async () => {
    // The list is the sandbox's, shared by this file's tests: put it back whatever happens here.
    onTestFinished(async () => {
      await control.setBank('NGN', '044', 'Access Bank');
      await control.setBank('NGN', '058', 'Guaranty Trust Bank');
      await control.removeBank('NGN', '999999');
    });
    await control.setBank('NGN', '999999', 'New Fintech MFB');
    await control.setBank('NGN', '058', 'GTBank (renamed)');
    expect(await control.removeBank('NGN', '044')).toBe(true);
    const ngn = await call(sb, PATHS.bankCodes, { currency: 'NGN' });
    expect(ngn.json.data).toContainEqual({ bankCode: '999999', bankName: 'New Fintech MFB' });
    expect(ngn.json.data).toContainEqual({ bankCode: '058', bankName: 'GTBank (renamed)' });
    expect(ngn.json.data.find((b: Bank) => b.bankCode === '044')).toBeUndefined();
    const refused = await call(sb, PATHS.payoutInitiate, payout({ currency: 'NGN', method: 'BANK', bankCode: '044' }));
    expect(refused.json).toMatchObject({ code: '400', data: null });
    expect(refused.json.message).toContain('bankCode');
  });

  it('balance and USDT rate: all four figures, rates in realistic ranges, withdraw worse than deposit', async () => {
    const b = await call(sb, PATHS.balance, { currency: 'NGN' });
    expect(Object.keys(b.json.data)).toEqual(['currency', 'available', 'pending', 'held', 'credit']);
    expect(b.text).toMatch(/"available":\d+\.\d{2}/);
    const ranges: Record<string, [number, number]> = { INR: [83, 90], NGN: [1500, 1650], IDR: [15500, 16500] };
    for (const [currency, [lo, hi]] of Object.entries(ranges)) {
      const r = await call(sb, PATHS.usdtRate, { currency });
      expect(Object.keys(r.json.data)).toEqual(['currency', 'deposit', 'withdraw']);
      const d = new Decimal(r.json.data.deposit);
      expect(d.gte(lo) && d.lte(hi)).toBe(true);
      expect(new Decimal(r.json.data.withdraw).gt(d)).toBe(true);
    }
  });

  it('rates drift with the sandbox clock, deterministically', async () => {
    const a = await call(sb, PATHS.usdtRate, { currency: 'INR' });
    await control.advanceClock(6 * 3600_000);
    const b = await call(sb, PATHS.usdtRate, { currency: 'INR' });
    expect(b.json.data.deposit).not.toBe(a.json.data.deposit);
  });

  it('validation names the field', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [PATHS.paymentInitiate, payment({ currency: 'USD' }), 'currency'],
      [PATHS.paymentInitiate, payment({ amount: '-5' }), 'amount'],
      [PATHS.paymentInitiate, payment({ amount: '0' }), 'amount'],
      [PATHS.paymentInitiate, payment({ amount: '1.234' }), 'amount'],
      [PATHS.paymentInitiate, payment({ method: 'CARD' }), 'method'],
      [PATHS.paymentInitiate, payment({ email: undefined }), 'email'],
      [PATHS.paymentInitiate, payment({ redirectUrl: 'not a url' }), 'redirectUrl'],
      [PATHS.payoutInitiate, payout({ bankCode: '12' }), 'bankCode'],
      [PATHS.payoutInitiate, payout({ account: undefined }), 'account'],
      [PATHS.paymentFetch, {}, 'transactionRef'],
      [PATHS.balance, { currency: 'EUR' }, 'currency'],
    ];
    for (const [path, body, field] of cases) {
      const r = await call(sb, path, body);
      expect(r.json.code, `${path} ${field}`).toBe('400');
      expect(r.json.message).toContain(field);
    }
    // A quoted amount is a string, not the number the spec asks for.
    const quoted = await signedPost({ baseUrl: sb.url, ...MERCHANT }, PATHS.paymentInitiate, JSON.stringify(payment()));
    expect(JSON.parse(quoted.text)).toMatchObject({ code: '400', message: expect.stringContaining('amount must be a number') });
  });

  it('large amounts up to 15 integer digits are accepted; beyond, the message names the digit limit, not the decimals', async () => {
    const ngn = { currency: 'NGN', method: 'TRANSFER' };
    for (const amount of ['12345678901234.56', '999999999999999.99']) {
      const r = await call(sb, PATHS.paymentInitiate, payment({ ...ngn, amount }));
      expect(r.json.code, `${amount}: ${r.json.message}`).toBe('200');
      expect(r.json.data.amount).toBe(amount);
    }
    const tooLarge = await call(sb, PATHS.paymentInitiate, payment({ ...ngn, amount: '1234567890123456.00' }));
    expect(tooLarge.json.message).toMatch(/amount must have at most 15 digits before the decimal point \(got 16\)/);
    const tooFine = await call(sb, PATHS.paymentInitiate, payment({ ...ngn, amount: '12.345' }));
    expect(tooFine.json.message).toMatch(/amount must have at most 2 decimals for NGN \(got 3\)/);
  });

  it('a merchantRef is accepted once per direction', async () => {
    const body = payment();
    expect((await call(sb, PATHS.paymentInitiate, body)).json.code).toBe('200');
    const again = await call(sb, PATHS.paymentInitiate, body);
    expect(again.json.code).toBe('400');
    expect(again.json.message).toContain('merchantRef');
  });

  it('same seed and merchantRef give the same transactionRef in another sandbox', async () => {
    const other = await sandbox();
    try {
      const body = payment();
      const a = await call(sb, PATHS.paymentInitiate, body);
      const b = await call(other, PATHS.paymentInitiate, body);
      expect(a.json.data.transactionRef).toBe(b.json.data.transactionRef);
    } finally {
      await other.close();
    }
  });
});

describe('sandbox authentication', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({
      merchants: [
        { id: 'm1', secret: 's1' },
        { id: 'm2', secret: 's2' },
      ],
    });
  });
  afterAll(() => sb.close());

  const url = () => `${sb.url}${API_PREFIX}${PATHS.balance}`;
  const body = '{"currency":"INR"}';
  const post = (headers: Record<string, string>, text = body) =>
    fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  const signed = (merchant: string, secret: string, ts = unixTimestamp(Date.now()), text = body) => ({
    MerchantID: merchant,
    Timestamp: ts,
    Signature: hmacSha256.sign({ timestamp: ts, body: text }, secret),
  });

  it('accepts a correctly signed request', async () => {
    const res = await post(signed('m1', 's1'));
    expect(res.status).toBe(200);
  });

  it('401 for each missing header, with a JSON body', async () => {
    const full = signed('m1', 's1');
    for (const drop of ['MerchantID', 'Signature', 'Timestamp'] as const) {
      const headers: Record<string, string> = { ...full };
      delete headers[drop];
      const res = await post(headers);
      expect(res.status).toBe(401);
      const json = await res.json();
      expect(json.code).toBe('401');
      expect(json.message).toContain(drop);
    }
  });

  it('403 for unknown merchant, wrong secret, tampered body, stale or future Timestamp', async () => {
    const now = Date.now();
    const cases: Array<[Record<string, string>, string?]> = [
      [signed('nobody', 's1')],
      [signed('m1', 's2')],
      [signed('m1', 's1'), '{"currency":"NGN"}'],
      [signed('m1', 's1', unixTimestamp(now - 301_000))],
      [signed('m1', 's1', unixTimestamp(now + 400_000))],
      [signed('m1', 's1', 'yesterday')],
    ];
    for (const [headers, text] of cases) {
      const res = await post(headers, text);
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('403');
    }
  });

  it('orders are private to their merchant', async () => {
    const init = await signedPost({ baseUrl: sb.url, merchantId: 'm1', secret: 's1' }, PATHS.paymentInitiate, stringifyBody(payment()));
    const transactionRef = (parseLossless(init.text) as Envelope).data.transactionRef;
    const other = await signedPost(
      { baseUrl: sb.url, merchantId: 'm2', secret: 's2' },
      PATHS.paymentFetch,
      JSON.stringify({ transactionRef }),
    );
    expect((parseLossless(other.text) as Envelope).code).toBe('404');
  });

  it('verifies with the configured scheme (md5-sorted)', async () => {
    const md5 = await startSandbox({ signature: md5Sorted });
    try {
      const ok = await signedPost({ baseUrl: md5.url, ...MERCHANT, scheme: md5Sorted }, PATHS.balance, body);
      expect(ok.status).toBe(200);
      const hmac = await signedPost({ baseUrl: md5.url, ...MERCHANT }, PATHS.balance, body);
      expect(hmac.status).toBe(403);
    } finally {
      await md5.close();
    }
  });
});

describe('sandbox lifecycle and balance', () => {
  it('payments become Success at full amount with a fee after the delay, and the balance follows', async () => {
    // A frozen injected clock, so only advanceClock moves time.
    const frozen = Date.now();
    const sb = await sandbox({ now: () => frozen });
    const control = new SandboxControl(sb.url);
    try {
      const before = (await call(sb, PATHS.balance, { currency: 'INR' })).json.data;
      const init = await call(sb, PATHS.paymentInitiate, payment({ amount: '1000.50' }));
      const tx = init.json.data.transactionRef;
      await control.advanceClock(999);
      expect((await call(sb, PATHS.paymentFetch, { transactionRef: tx })).json.data.status).toBe('Pending');
      expect((await call(sb, PATHS.balance, { currency: 'INR' })).json.data).toEqual(before);
      await control.advanceClock(1);
      const done = (await call(sb, PATHS.paymentFetch, { transactionRef: tx })).json.data;
      // INR pay-in fee 2% of 1000.50 = 20.01
      expect(done).toMatchObject({ status: 'Success', paidAmount: '1000.50', fee: '20.01' });
      const after = (await call(sb, PATHS.balance, { currency: 'INR' })).json.data;
      expect(new Decimal(after.available).minus(before.available).toFixed(2)).toBe('980.49');
      expect(total(after).minus(total(before)).toFixed(2)).toBe('980.49');
      expect(after.credit).toBe(before.credit);
    } finally {
      await sb.close();
    }
  });

  it('failed, partial and stuck payments as their scenario says; failures leave the balance alone', async () => {
    const failing = await sandbox({ lifecycle: { paymentFailedShare: 1 } });
    const partial = await sandbox({ lifecycle: { paymentPartialShare: 1 } });
    const stuck = await sandbox({ lifecycle: { paymentStuckShare: 1 } });
    try {
      const f = await call(failing, PATHS.paymentInitiate, payment());
      const p = await call(partial, PATHS.paymentInitiate, payment({ amount: '1000.00' }));
      const s = await call(stuck, PATHS.paymentInitiate, payment());
      const beforeFailing = (await call(failing, PATHS.balance, { currency: 'INR' })).json.data;
      for (const sb of [failing, partial, stuck]) await new SandboxControl(sb.url).advanceClock(86_400_000);
      const fd = (await call(failing, PATHS.paymentFetch, { transactionRef: f.json.data.transactionRef })).json.data;
      expect(fd).toMatchObject({ status: 'Failed', paidAmount: '0.00', fee: '0.00' });
      expect((await call(failing, PATHS.balance, { currency: 'INR' })).json.data).toEqual(beforeFailing);
      const pd = (await call(partial, PATHS.paymentFetch, { transactionRef: p.json.data.transactionRef })).json.data;
      expect(pd.status).toBe('Success');
      expect(new Decimal(pd.paidAmount).lt('1000.00') && new Decimal(pd.paidAmount).gte('500')).toBe(true);
      expect(pd.fee).toBe(new Decimal(pd.paidAmount).mul('0.02').toDecimalPlaces(2).toFixed(2));
      const sd = (await call(stuck, PATHS.paymentFetch, { transactionRef: s.json.data.transactionRef })).json.data;
      expect(sd.status).toBe('Pending');
    } finally {
      await Promise.all([failing.close(), partial.close(), stuck.close()]);
    }
  });

  it('payout: initiate moves amount+fee to held (total unchanged), Success removes it, Failed returns it', async () => {
    const ok = await sandbox();
    const failing = await sandbox({ lifecycle: { payoutFailedShare: 1 } });
    try {
      for (const [sb, final] of [
        [ok, 'Success'],
        [failing, 'Failed'],
      ] as const) {
        const bal = async () => (await call(sb, PATHS.balance, { currency: 'INR' })).json.data;
        const b0 = await bal();
        const init = await call(sb, PATHS.payoutInitiate, payout({ amount: '2500.75' }));
        const debit = new Decimal('2500.75').plus(init.json.data.fee);
        const b1 = await bal();
        expect(new Decimal(b0.available).minus(b1.available).eq(debit)).toBe(true);
        expect(new Decimal(b1.held).minus(b0.held).eq(debit)).toBe(true);
        expect(total(b1).eq(total(b0))).toBe(true);
        await new SandboxControl(sb.url).advanceClock(5_000);
        const fetched = (await call(sb, PATHS.payoutFetch, { transactionRef: init.json.data.transactionRef })).json.data;
        expect(fetched.status).toBe(final);
        const b2 = await bal();
        expect(b2.held).toBe(b0.held);
        if (final === 'Success') {
          expect(fetched.utr).toMatch(/^\d{12}$/);
          expect(total(b0).minus(total(b2)).eq(debit)).toBe(true);
        } else {
          expect(fetched.utr).toBe('');
          expect(b2.available).toBe(b0.available);
        }
      }
    } finally {
      await Promise.all([ok.close(), failing.close()]);
    }
  });

  it('INR payouts whose scenario withholds the UTR succeed with utr ""', async () => {
    const sb = await sandbox({ lifecycle: { utrMissingShare: 1 } });
    try {
      const init = await call(sb, PATHS.payoutInitiate, payout());
      await new SandboxControl(sb.url).advanceClock(5_000);
      const d = (await call(sb, PATHS.payoutFetch, { transactionRef: init.json.data.transactionRef })).json.data;
      expect(d).toMatchObject({ status: 'Success', utr: '' });
    } finally {
      await sb.close();
    }
  });

  it('roll-forward holds over a mixed day with default shares, and drift shows up exactly', async () => {
    const sb = await startSandbox({ seed: 7 });
    const control = new SandboxControl(sb.url);
    try {
      const b0 = (await call(sb, PATHS.balance, { currency: 'IDR' })).json.data;
      const pays: string[] = [];
      const pos: string[] = [];
      for (let i = 0; i < 60; i++) {
        pays.push(
          (await call(sb, PATHS.paymentInitiate, payment({ currency: 'IDR', method: 'BNI', amount: `${150000 + i * 1000}.00` }))).json.data
            .transactionRef,
        );
        if (i % 2)
          pos.push(
            (
              await call(
                sb,
                PATHS.payoutInitiate,
                payout({ currency: 'IDR', method: 'TRANSFER', bankCode: '014', amount: `${90000 + i}.50` }),
              )
            ).json.data.transactionRef,
          );
      }
      await control.advanceClock(3600_000);
      let expected = new Decimal(0);
      const statuses = new Set<string>();
      for (const tx of pays) {
        const d = (await call(sb, PATHS.paymentFetch, { transactionRef: tx })).json.data;
        statuses.add(d.status);
        if (d.status === 'Success') expected = expected.plus(d.paidAmount).minus(d.fee);
      }
      for (const tx of pos) {
        const d = (await call(sb, PATHS.payoutFetch, { transactionRef: tx })).json.data;
        statuses.add(`payout:${d.status}`);
        if (d.status === 'Success') expected = expected.minus(d.amount).minus(d.fee);
      }
      const b1 = (await call(sb, PATHS.balance, { currency: 'IDR' })).json.data;
      expect(total(b1).minus(total(b0)).eq(expected)).toBe(true);
      expect(statuses.has('Success') && statuses.has('payout:Success')).toBe(true);

      await control.adjustBalance('IDR', '-1234.56');
      const b2 = (await call(sb, PATHS.balance, { currency: 'IDR' })).json.data;
      expect(total(b2).minus(total(b1)).toFixed(2)).toBe('-1234.56');
    } finally {
      await sb.close();
    }
  });

  it('orders nobody fetched are final on time (the queue runs on the clock, not on fetches)', async () => {
    let now = 1_700_000_000_000;
    const sb = await sandbox({ now: () => now });
    try {
      const b0 = (await call(sb, PATHS.balance, { currency: 'INR' }, { now: () => now })).json.data;
      await call(sb, PATHS.paymentInitiate, payment({ amount: '100.00' }), { now: () => now });
      now += 1000;
      const b1 = (await call(sb, PATHS.balance, { currency: 'INR' }, { now: () => now })).json.data;
      expect(new Decimal(b1.available).minus(b0.available).toFixed(2)).toBe('98.00');
    } finally {
      await sb.close();
    }
  });
});

describe('sandbox control of orders', () => {
  it('setOrder overrides fields and pins the order; deleteOrder makes fetch say not found; reset clears', async () => {
    const sb = await sandbox();
    const control = new SandboxControl(sb.url);
    try {
      const tx = (await call(sb, PATHS.paymentInitiate, payment({ amount: '500.00' }))).json.data.transactionRef;
      await control.setOrder(tx, { status: 'Success', paidAmount: '450.00', fee: '9.00', currency: 'NGN' });
      await control.advanceClock(10_000);
      const d = (await call(sb, PATHS.paymentFetch, { transactionRef: tx })).json.data;
      expect(d).toMatchObject({ status: 'Success', paidAmount: '450.00', fee: '9.00', currency: 'NGN', amount: '500.00' });
      expect((await control.getOrder(tx))?.pinned).toBe(true);
      await expect(control.setOrder(tx, { amount: '1e3' })).rejects.toThrow(/decimal text/);
      expect(await control.deleteOrder(tx)).toBe(true);
      expect((await call(sb, PATHS.paymentFetch, { transactionRef: tx })).json.code).toBe('404');
      await control.reset();
      const stats = await control.stats();
      expect(stats.orders).toEqual({ payments: 0, payouts: 0, seeded: 0 });
      expect(stats.requests.total).toBe(0);
    } finally {
      await sb.close();
    }
  });

  it('stats count requests per operation', async () => {
    const sb = await sandbox();
    try {
      await call(sb, PATHS.balance, { currency: 'INR' });
      await call(sb, PATHS.balance, { currency: 'NGN' });
      await call(sb, PATHS.usdtRate, { currency: 'NGN' });
      const s = await new SandboxControl(sb.url).stats();
      expect(s.requests).toMatchObject({ balance: 2, usdtRate: 1, paymentFetch: 0, total: 3 });
    } finally {
      await sb.close();
    }
  });
});
