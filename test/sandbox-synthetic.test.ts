import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { parseLossless } from '../src/provider/json.ts';
import { PATHS } from '../src/provider/types.ts';
import { DEFAULT_BANKS } from '../src/sandbox/bank-codes.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { computeFee } from '../src/sandbox/fees.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { signedPost } from './helpers/signed-post.ts';
import { syntheticIndexOf, syntheticOrder } from '../src/sandbox/synthetic.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('syntheticOrder', () => {
  it('is pure and deterministic, and differs across seeds and indexes', () => {
    expect(syntheticOrder(42, 7)).toEqual(syntheticOrder(42, 7));
    expect(syntheticOrder(42, 7).transactionRef).not.toBe(syntheticOrder(43, 7).transactionRef);
    expect(syntheticOrder(42, 7).transactionRef).not.toBe(syntheticOrder(42, 8).transactionRef);
  });

  it('gives well-formed orders with a realistic mix of outcomes', () => {
    const refs = new Set<string>();
    const status: Record<string, number> = {};
    let partial = 0;
    let utrMissing = 0;
    for (let i = 0; i < 5000; i++) {
      const o = syntheticOrder(3, i);
      refs.add(o.transactionRef);
      expect(o.transactionRef).toMatch(UUID);
      expect(o.merchantRef).toMatch(UUID);
      expect(syntheticIndexOf(3, o.transactionRef)).toBe(i);
      expect(o.amount).toMatch(/^\d+\.\d{2}$/);
      const key = `${o.direction}:${o.status}`;
      status[key] = (status[key] ?? 0) + 1;
      if (o.direction === 'payment' && o.status === 'Success') {
        if (o.paidAmount !== o.amount) partial++;
        expect(o.fee).toBe(computeFee('payment', o.currency, o.paidAmount));
      }
      if (o.direction === 'payout') {
        expect(o.fee).toBe(computeFee('payout', o.currency, o.amount));
        if (o.currency === 'INR') {
          expect(o.bankCode).toMatch(/^[A-Z]{4}0\d{6}$/);
          if (o.status === 'Success' && o.utr === '') utrMissing++;
        } else {
          expect(DEFAULT_BANKS[o.currency].some((b) => b.bankCode === o.bankCode)).toBe(true);
          expect(o).not.toHaveProperty('utr', expect.anything());
        }
      }
    }
    expect(refs.size).toBe(5000);
    for (const k of ['payment:Success', 'payment:Failed', 'payment:Pending', 'payout:Success', 'payout:Failed', 'payout:Initiated']) {
      expect(status[k], k).toBeGreaterThan(0);
    }
    expect(status['payment:Success'] / (status['payment:Success'] + status['payment:Failed'] + status['payment:Pending'])).toBeGreaterThan(
      0.8,
    );
    expect(partial).toBeGreaterThan(0);
    expect(utrMissing).toBeGreaterThan(0);
  });
});

describe('bulk seed', () => {
  let sb: Sandbox;
  let control: SandboxControl;
  const creds = () => ({ baseUrl: sb.url, merchantId: 'demo-merchant', secret: 'demo-secret' });
  const fetchOrder = async (direction: string, transactionRef: string) =>
    parseLossless(
      (await signedPost(creds(), direction === 'payment' ? PATHS.paymentFetch : PATHS.payoutFetch, JSON.stringify({ transactionRef })))
        .text,
    ) as {
      code: string;
      data: Record<string, string>;
    };

  beforeAll(async () => {
    sb = await startSandbox();
    control = new SandboxControl(sb.url);
  });
  afterAll(() => sb.close());

  it('makes 500k orders known in well under a second, fetchable with their synthetic state', async () => {
    const t = performance.now();
    const r = await control.bulkSeed({ seed: 9, count: 500_000 });
    expect(performance.now() - t).toBeLessThan(1000);
    expect(r.count).toBe(500_000);
    expect((await control.stats()).orders.seeded).toBe(500_000);
    for (const i of [0, 1, 12_345, 499_999]) {
      const o = syntheticOrder(9, i);
      const res = await fetchOrder(o.direction, o.transactionRef);
      expect(res.code).toBe('200');
      expect(res.data).toMatchObject({
        transactionRef: o.transactionRef,
        merchantRef: o.merchantRef,
        currency: o.currency,
        amount: o.amount,
        fee: o.fee,
        status: o.status,
      });
      if (o.direction === 'payment') expect(res.data.paidAmount).toBe(o.paidAmount);
      else if (o.currency === 'INR') expect(res.data.utr).toBe(o.utr);
    }
    // Beyond the count, or from another seed, the sandbox does not know the order.
    const beyond = syntheticOrder(9, 500_000);
    expect((await fetchOrder(beyond.direction, beyond.transactionRef)).code).toBe('404');
    const otherSeed = syntheticOrder(10, 5);
    expect((await fetchOrder(otherSeed.direction, otherSeed.transactionRef)).code).toBe('404');
  });

  it('seeded orders can be edited and deleted like live ones, without touching the balance', async () => {
    const balance = async () =>
      (parseLossless((await signedPost(creds(), PATHS.balance, '{"currency":"INR"}')).text) as { data: Record<string, string> }).data;
    const before = await balance();
    const o = syntheticOrder(9, 77);
    await control.setOrder(o.transactionRef, { amount: new Decimal(o.amount).plus('1').toFixed(2) });
    expect((await fetchOrder(o.direction, o.transactionRef)).data.amount).toBe(new Decimal(o.amount).plus('1').toFixed(2));
    expect(await control.deleteOrder(o.transactionRef)).toBe(true);
    expect((await fetchOrder(o.direction, o.transactionRef)).code).toBe('404');
    const p = syntheticOrder(9, 78);
    expect(await control.deleteOrder(p.transactionRef)).toBe(true);
    expect((await fetchOrder(p.direction, p.transactionRef)).code).toBe('404');
    expect(await balance()).toEqual(before);
  });
});
