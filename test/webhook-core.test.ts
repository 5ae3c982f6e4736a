import { describe, expect, it } from 'vitest';
import type { OrderRow } from '../src/db/orders.ts';
import { hmacSha256, md5Sorted } from '../src/provider/signing.ts';
import { createStatusMapper } from '../src/domain/status.ts';
import { defaultPolicy } from '../src/recon/policy.ts';
import { contradictions, planOrderUpdate, type FetchedOrder } from '../src/webhook/judge.ts';
import { judgeMissing, PROVIDER_RETRY_WINDOW_MS } from '../src/recon/webhook-findings.ts';
import { dedupeKey, parsePaymentNotification, parsePayoutNotification, PayloadError } from '../src/webhook/payload.ts';
import { verifyWebhook } from '../src/webhook/verify.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const ts = (offsetSec: number) => String(Math.floor(NOW / 1000) + offsetSec);
const body = '{"transactionRef":"t-1","status":"Success"}';
const signed = (timestamp: string, b = body, secret = 's3cret') => hmacSha256.sign({ timestamp, body: b }, secret);

describe('verifyWebhook', () => {
  const base = { body, nowMs: NOW, scheme: hmacSha256, secret: 's3cret', windowSec: 900, futureSkewSec: 300 };
  it.each([
    ['fresh and signed', { signature: signed(ts(0)), timestamp: ts(0) }, null],
    ['upper-case hex signature', { signature: signed(ts(0)).toUpperCase(), timestamp: ts(0) }, null],
    ['a retry 9 minutes later with the first Timestamp', { signature: signed(ts(-540)), timestamp: ts(-540) }, null],
    ['exactly at the window', { signature: signed(ts(-900)), timestamp: ts(-900) }, null],
    ['missing Signature', { signature: undefined, timestamp: ts(0) }, 401],
    ['missing Timestamp', { signature: signed(ts(0)), timestamp: undefined }, 401],
    ['Timestamp in milliseconds', { signature: signed(String(NOW)), timestamp: String(NOW) }, 401],
    ['wrong secret', { signature: signed(ts(0), body, 'other'), timestamp: ts(0) }, 401],
    ['signature of another Timestamp', { signature: signed(ts(-1)), timestamp: ts(0) }, 401],
    ['signature of another body', { signature: signed(ts(0), '{"x":1}'), timestamp: ts(0) }, 401],
    ['stale', { signature: signed(ts(-901)), timestamp: ts(-901) }, 403],
    ['too far in the future', { signature: signed(ts(301)), timestamp: ts(301) }, 403],
  ])('%s', (_name, h, status) => {
    const r = verifyWebhook({ ...base, ...h });
    if (status === null) expect(r).toEqual({ ok: true });
    else expect(r).toMatchObject({ ok: false, status });
  });

  it('works with another scheme (md5-sorted signs the body fields only)', () => {
    const sig = md5Sorted.sign({ timestamp: ts(0), body }, 's3cret');
    expect(verifyWebhook({ ...base, scheme: md5Sorted, signature: sig, timestamp: ts(0) })).toEqual({ ok: true });
  });
});

const payment = {
  transactionRef: 't-1',
  merchantRef: 'm-1',
  currency: 'NGN',
  method: 'TRANSFER',
  amount: '25000.00',
  paidAmount: '25000.00',
  fee: '370.00',
  status: 'Success',
};

describe('payment notification payload', () => {
  it('keeps amounts as exact decimal text, whether sent as strings or JSON numbers', () => {
    expect(parsePaymentNotification(JSON.stringify(payment))).toMatchObject({ amount: '25000.00', paidAmount: '25000.00', fee: '370.00' });
    const numbers =
      '{"transactionRef":"t-1","merchantRef":"m-1","currency":"NGN","method":"TRANSFER","amount":12345678901234.56,"paidAmount":0.1,"fee":0,"status":"Success"}';
    expect(parsePaymentNotification(numbers)).toMatchObject({ amount: '12345678901234.56', paidAmount: '0.1', fee: '0' });
  });

  it.each([
    ['not JSON', 'transactionRef=t-1', /not JSON/],
    ['an array', '[]', /not a JSON object/],
    ['a field missing', JSON.stringify({ ...payment, fee: undefined }), /missing or empty field\(s\): fee/],
    ['an empty field', JSON.stringify({ ...payment, transactionRef: '' }), /transactionRef/],
    ['an amount that is not decimal', JSON.stringify({ ...payment, amount: '1e5' }), /not a decimal amount.*: amount/],
    ['a negative fee', JSON.stringify({ ...payment, fee: '-5.00' }), /not a decimal amount of zero or more.*: fee/],
    [
      'a forty-digit amount',
      JSON.stringify({ ...payment, amount: '1234567890123456789012345678901234567890' }),
      /at most 15 digits.*: amount/,
    ],
    ['a NUL in the status', JSON.stringify({ ...payment, status: 'Succ\u0000ess' }), /control characters in field\(s\): status/],
    ['an escape sequence in the method', JSON.stringify({ ...payment, method: '\u001b[2J' }), /control characters in field\(s\): method/],
  ])('refuses %s', (_name, raw, message) => {
    expect(() => parsePaymentNotification(raw)).toThrow(PayloadError);
    expect(() => parsePaymentNotification(raw)).toThrow(message);
  });

  it('dedupe key: same notification re-serialised or with equal amounts written differently is one key; another status is another', () => {
    const a = parsePaymentNotification(JSON.stringify(payment));
    const reordered = JSON.stringify({
      status: 'Success',
      fee: '370',
      amount: '25000',
      paidAmount: '25000.0',
      method: 'TRANSFER',
      currency: 'NGN',
      merchantRef: 'm-1',
      transactionRef: 't-1',
    });
    const b = parsePaymentNotification(reordered);
    expect(dedupeKey(a, 'raw-a')).toBe(dedupeKey(b, 'raw-b'));
    const failed = parsePaymentNotification(JSON.stringify({ ...payment, status: 'Failed', paidAmount: '0' }));
    expect(dedupeKey(failed, 'x')).not.toBe(dedupeKey(a, 'x'));
  });

  it('payout payload is unspecified: any object is kept, recognisable fields picked, junk amounts dropped', () => {
    const n = parsePayoutNotification('{"transactionRef":"p-1","amount":"10.5","fee":"abc","extra":{"a":1}}');
    expect(n).toMatchObject({ direction: 'payout', transactionRef: 'p-1', amount: '10.5', fee: null, status: null });
    expect(dedupeKey(n, '{"a":1}')).not.toBe(dedupeKey(n, '{"a":2}'));
    expect(parsePayoutNotification('{"transactionRef":"p-1","amount":"-10.5","fee":"0.0000000001"}')).toMatchObject({
      amount: null,
      fee: null,
    });
    expect(() => parsePayoutNotification('{"transactionRef":"p-1","utr":"x","status":"Success\\u0000"}')).toThrow(
      /control characters.*status/,
    );
  });
});

const fetched: FetchedOrder = { ...payment, category: 'success' };
const mapStatus = createStatusMapper();

describe('contradictions (notification vs fetch)', () => {
  it.each([
    ['identical', {}, {}, []],
    ['same amounts written differently', { amount: '25000' }, { fee: '370.0' }, []],
    ['status string case differs only', { status: 'SUCCESS' }, {}, []],
    ['provider still pending', {}, { status: 'Pending', category: 'pending' as const }, ['status']],
    ['paidAmount differs', {}, { paidAmount: '24000.00' }, ['paidAmount']],
    ['fee differs', { fee: '1.00' }, {}, ['fee']],
    ['merchantRef differs', { merchantRef: 'm-2' }, {}, ['merchantRef']],
    ['currency differs', { currency: 'INR' }, {}, ['currency']],
  ])('%s', (_name, nPatch, fPatch, fields) => {
    const n = parsePaymentNotification(JSON.stringify({ ...payment, ...nPatch }));
    const diffs = contradictions(n, { ...fetched, ...fPatch }, mapStatus);
    expect(diffs.map((d) => d.split(':')[0])).toEqual(fields);
  });

  it('a payout notification is compared only on what it carries', () => {
    const n = parsePayoutNotification('{"transactionRef":"p-1","status":"Success"}');
    expect(contradictions(n, { ...fetched, fee: '99' }, mapStatus)).toEqual([]);
  });
});

const local = (patch: Partial<OrderRow> = {}): OrderRow => ({
  direction: 'payment',
  id: '7',
  merchantRef: 'm-1',
  transactionRef: 't-1',
  currency: 'NGN',
  method: 'TRANSFER',
  amount: '25000.00',
  paidAmount: null,
  fee: null,
  bankCode: null,
  utr: null,
  status: 'Initiated',
  statusCategory: 'pending',
  createdAt: new Date(NOW),
  updatedAt: new Date(NOW),
  finalizedAt: null,
  lastCheckedAt: null,
  checkCount: 0,
  nextCheckAt: null,
  ...patch,
});

describe('planOrderUpdate', () => {
  const at = new Date(NOW);
  it('moves a pending local order to the confirmed final status with paid amount and fee', () => {
    expect(planOrderUpdate(local(), fetched, at, defaultPolicy())).toMatchObject({
      apply: { status: 'Success', statusCategory: 'success', paidAmount: '25000.00', fee: '370.00', at },
    });
  });
  it.each([
    ['no local order', null, fetched, /no local order/],
    ['local already final', local({ status: 'Success', statusCategory: 'success' }), fetched, /already final/],
    ['local final the other way', local({ status: 'Failed', statusCategory: 'failed' }), fetched, /left for reconcile/],
    ['provider not final', local(), { ...fetched, status: 'Pending', category: 'pending' as const }, /not final/],
    ['local amount differs', local({ amount: '1.00' }), fetched, /not the order payrecon has \(AMOUNT: /],
    ['local merchantRef differs', local({ merchantRef: 'other' }), fetched, /MERCHANT_REF: /],
  ])('leaves the order alone: %s', (_name, order, f, note) => {
    const plan = planOrderUpdate(order, f, at, defaultPolicy());
    expect(plan.apply).toBeNull();
    expect(plan.note).toMatch(note);
  });
  it('keeps a fee and paidAmount the merchant recorded that disagree, keeps the provider figures beside them and asks for a re-check', () => {
    const plan = planOrderUpdate(local({ fee: '300.00', paidAmount: '24000.00' }), fetched, at, defaultPolicy());
    expect(plan.apply).toMatchObject({ status: 'Success', providerFee: '370.00', providerPaidAmount: '25000.00', recheck: true });
    expect(plan.apply).not.toHaveProperty('fee');
    expect(plan.apply).not.toHaveProperty('paidAmount');
    expect(plan.note).toMatch(
      /recorded fee 300.00 \(provider 370.00\), paidAmount 24000.00 \(provider 25000.00\) kept, re-check requested/,
    );
  });
  it('takes what the merchant did not record and says so; a recorded UTR that disagrees is kept', () => {
    expect(planOrderUpdate(local(), fetched, at, defaultPolicy()).note).toMatch(
      /fee 370.00, paidAmount 25000.00 taken from the provider \(none recorded\)/,
    );
    const plan = planOrderUpdate(local({ direction: 'payout', utr: 'MINE1' }), { ...fetched, utr: 'UTR1' }, at, defaultPolicy());
    expect(plan.apply).not.toHaveProperty('utr');
    expect(plan.apply).toMatchObject({ recheck: true });
  });
  it('payouts carry utr, never paidAmount', () => {
    const plan = planOrderUpdate(local({ direction: 'payout' }), { ...fetched, utr: 'UTR1' }, at, defaultPolicy());
    expect(plan.apply).toMatchObject({ utr: 'UTR1' });
    expect(plan.apply).not.toHaveProperty('paidAmount');
  });
});

describe('judgeMissing', () => {
  const order = { direction: 'payment' as const, merchantRef: 'm-1', transactionRef: 't-1', status: 'Success', notified: false };
  const margin = 5 * 60_000;
  it.each([
    ['within the provider retries', -5 * 60_000, false, null],
    ['retries over, margin not yet', -(PROVIDER_RETRY_WINDOW_MS + margin - 1), false, null],
    ['retries and margin over', -(PROVIDER_RETRY_WINDOW_MS + margin), false, 'WEBHOOK_MISSING'],
    ['a day later', -86_400_000, false, 'WEBHOOK_MISSING'],
    ['a day later but notified', -86_400_000, true, null],
  ])('%s', (_name, ageMs, notified, code) => {
    const f = judgeMissing({ ...order, notified, finalizedAt: new Date(NOW + ageMs) }, { now: new Date(NOW), marginMs: margin });
    expect(f?.code ?? null).toBe(code);
    if (f) expect(f).toMatchObject({ merchantRef: 'm-1', transactionRef: 't-1', local: 'Success', provider: null });
  });
});
