import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLossless, stringifyBody } from '../src/provider/json.ts';
import { PATHS } from '../src/provider/types.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { signedPost } from './helpers/signed-post.ts';
import { startCli } from './helpers/cli.ts';

// One sandbox serving several MerchantIDs, as a provider serves the accounts of one merchant group:
// each with its own secret, orders, balances and rate limit.

const IN = { merchantId: 'in-main', secret: 'secret-in' };
const NG = { merchantId: 'ng-brand', secret: 'secret-ng' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies asserted field by field
type Envelope = { code: string; message: string; data: any };

async function call(sb: Sandbox | string, who: { merchantId: string; secret: string }, path: string, body: Record<string, unknown>) {
  const res = await signedPost({ baseUrl: typeof sb === 'string' ? sb : sb.url, ...who }, path, stringifyBody(body));
  return { ...res, json: parseLossless(res.text) as Envelope };
}

const payment = (merchantRef: string) => ({
  merchantRef,
  currency: 'INR',
  method: 'NATIVE',
  amount: '100.00',
  name: 'Asha Rao',
  phone: '+919876543210',
  email: 'asha@example.com',
  redirectUrl: 'https://shop.example.com/done',
});

describe('a sandbox of several MerchantIDs', () => {
  let sb: Sandbox;
  let control: SandboxControl;
  beforeAll(async () => {
    sb = await startSandbox({
      merchants: [
        { ...{ id: IN.merchantId, secret: IN.secret }, rateLimitPerSec: 3 },
        { id: NG.merchantId, secret: NG.secret },
      ],
    });
    control = new SandboxControl(sb.url);
  });
  afterAll(() => sb.close());

  it("refuses a MerchantID signed with another merchant's secret (403)", async () => {
    const wrong = await call(sb, { merchantId: IN.merchantId, secret: NG.secret }, PATHS.balance, { currency: 'INR' });
    expect(wrong.status).toBe(403);
    expect(wrong.json.message).toContain('invalid Signature');
    expect((await call(sb, NG, PATHS.balance, { currency: 'INR' })).status).toBe(200);
  });

  it('takes the same merchantRef from each merchant as two orders, each private to its merchant', async () => {
    const a = await call(sb, IN, PATHS.paymentInitiate, payment('shared-ref-1'));
    const b = await call(sb, NG, PATHS.paymentInitiate, payment('shared-ref-1'));
    expect([a.json.code, b.json.code]).toEqual(['200', '200']);
    expect(a.json.data.transactionRef).not.toBe(b.json.data.transactionRef);
    const crossed = await call(sb, NG, PATHS.paymentFetch, { transactionRef: a.json.data.transactionRef });
    expect(crossed.json.code).not.toBe('200');
    const own = await call(sb, IN, PATHS.paymentFetch, { transactionRef: a.json.data.transactionRef });
    expect(own.json.data.merchantRef).toBe('shared-ref-1');
  });

  it('keeps a balance per merchant', async () => {
    const before = (await call(sb, NG, PATHS.balance, { currency: 'NGN' })).json.data;
    await control.adjustBalance('NGN', '1234.00', IN.merchantId);
    const after = (await call(sb, NG, PATHS.balance, { currency: 'NGN' })).json.data;
    expect(after).toEqual(before);
  });

  it('limits each merchant to its own rate: the limited one gets 429, the other none', async () => {
    await control.setRateLimit(3, IN.merchantId);
    const burst = async (who: typeof IN) =>
      Promise.all(Array.from({ length: 8 }, () => call(sb, who, PATHS.usdtRate, { currency: 'INR' }).then((r) => r.status)));
    const limited = await burst(IN);
    const free = await burst(NG);
    expect(limited.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(free.every((s) => s === 200)).toBe(true);
    const rate = (await control.stats()).rate;
    expect(rate.perMerchant[IN.merchantId]).toMatchObject({ limitPerSec: 3 });
    expect(rate.perMerchant[IN.merchantId].throttled).toBeGreaterThanOrEqual(5);
    expect(rate.perMerchant[NG.merchantId]).toEqual({ limitPerSec: null, throttled: 0 });
  });

  it('a common limit leaves a merchant’s own in place, and reset returns to the starting limits', async () => {
    await control.setRateLimit(50);
    const stats = (await control.stats()).rate.perMerchant;
    expect(stats[IN.merchantId].limitPerSec).toBe(3);
    expect(stats[NG.merchantId].limitPerSec).toBe(50);
    await control.setRateLimit(null, IN.merchantId);
    expect((await control.stats()).rate.perMerchant[IN.merchantId].limitPerSec).toBeNull();
    await control.reset();
    const reset = (await control.stats()).rate;
    expect(reset.limitPerSec).toBeNull();
    expect(reset.perMerchant[IN.merchantId].limitPerSec).toBe(3);
  });
});

describe('payrecon sandbox --merchant', () => {
  it('serves each merchant given on the command line with its own secret', async () => {
    const { child, done } = startCli(['sandbox', '--port', '0', '--merchant', 'in-main:secret-in:5', '--merchant', 'ng-brand:secret-ng'], {
      LOG_LEVEL: 'silent',
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d) => {
          out += d;
          const m = /listening on (http:\/\/\S+) .* merchants in-main, ng-brand/.exec(out);
          if (m) resolve(m[1]);
        });
        void done.then((r) => reject(new Error(`sandbox exited ${r.code}: ${r.stderr}`)));
      });
      expect((await call(url, IN, PATHS.balance, { currency: 'INR' })).status).toBe(200);
      expect((await call(url, NG, PATHS.balance, { currency: 'INR' })).status).toBe(200);
      expect((await call(url, { merchantId: 'ng-brand', secret: 'secret-in' }, PATHS.balance, { currency: 'INR' })).status).toBe(403);
      expect((await call(url, { merchantId: 'demo-merchant', secret: 'demo-secret' }, PATHS.balance, { currency: 'INR' })).status).toBe(
        403,
      );
      const stats = await new SandboxControl(url).stats();
      expect(stats.rate.perMerchant['in-main'].limitPerSec).toBe(5);
    } finally {
      child.kill('SIGTERM');
      await done;
    }
  });

  it('--accounts serves every account of ACCOUNTS_FILE with its secret and rate limit', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-sandbox-accounts-'));
    const file = path.join(dir, 'accounts.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          { id: 'in', merchantId: 'in-main', secret: { env: 'IN_S' }, rateLimitPerSec: 7 },
          { id: 'ng', merchantId: 'ng-brand', secret: { env: 'NG_S' } },
        ],
      }),
    );
    const { child, done } = startCli(['sandbox', '--port', '0', '--accounts'], {
      ACCOUNTS_FILE: file,
      IN_S: IN.secret,
      NG_S: NG.secret,
      LOG_LEVEL: 'silent',
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d) => {
          out += d;
          const m = /listening on (http:\/\/\S+) .* merchants in-main, ng-brand/.exec(out);
          if (m) resolve(m[1]);
        });
        void done.then((r) => reject(new Error(`sandbox exited ${r.code}: ${r.stderr}`)));
      });
      expect((await call(url, IN, PATHS.balance, { currency: 'INR' })).status).toBe(200);
      expect((await call(url, NG, PATHS.balance, { currency: 'INR' })).status).toBe(200);
      const perMerchant = (await new SandboxControl(url).stats()).rate.perMerchant;
      expect(perMerchant['in-main'].limitPerSec).toBe(7);
      expect(perMerchant['ng-brand'].limitPerSec).toBeNull();
    } finally {
      child.kill('SIGTERM');
      await done;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a malformed --merchant (exit 3)', async () => {
    const r = await startCli(['sandbox', '--port', '0', '--merchant', 'no-secret'], {}).done;
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('expected ID:SECRET or ID:SECRET:RATE');
  });
});
