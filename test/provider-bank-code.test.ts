import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { checkBankCode, type BankCodeCache } from '../src/provider/bank-code.ts';
import { ProviderUnavailableError } from '../src/provider/errors.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import type { BankEntry } from '../src/provider/types.ts';
import custom from './fixtures/provider-custom-scheme.ts';

function fakeClient(lists: Record<string, BankEntry[]>) {
  const calls: string[] = [];
  return {
    calls,
    async bankCodes(currency: 'IDR' | 'NGN') {
      calls.push(currency);
      return lists[currency] ?? [];
    },
  };
}

describe('checkBankCode', () => {
  it('finds IDR/NGN codes in the provider list, comparing as text', async () => {
    const c = fakeClient({ IDR: [{ bankCode: '014', bankName: 'BCA' }], NGN: [{ bankCode: '058', bankName: 'GTBank' }] });
    expect(await checkBankCode(c, 'IDR', '014')).toEqual({ ok: true, bankName: 'BCA' });
    expect(await checkBankCode(c, 'NGN', '058')).toEqual({ ok: true, bankName: 'GTBank' });
    const miss = await checkBankCode(c, 'IDR', '14');
    expect(miss.ok).toBe(false);
    expect(miss.reason).toBe('bank code "14" is not in the provider\'s IDR list');
  });

  it('checks INR against the IFSC shape without calling the provider', async () => {
    const c = fakeClient({});
    expect(await checkBankCode(c, 'INR', 'HDFC0001234')).toEqual({ ok: true });
    expect((await checkBankCode(c, 'INR', 'HDFC1001234')).ok).toBe(false);
    expect((await checkBankCode(c, 'INR', 'hdfc0001234')).ok).toBe(false);
    expect((await checkBankCode(c, 'INR', 'HDFC00012345')).ok).toBe(false);
    expect(c.calls).toEqual([]);
  });

  it('calls the lookup once per currency with a cache, and drops a failed lookup from it', async () => {
    const c = fakeClient({ NGN: [{ bankCode: '058', bankName: 'GTBank' }] });
    const cache: BankCodeCache = new Map();
    await Promise.all([checkBankCode(c, 'NGN', '058', cache), checkBankCode(c, 'NGN', '044', cache)]);
    expect(c.calls).toEqual(['NGN']);
    let fail = true;
    const flaky = {
      async bankCodes(): Promise<BankEntry[]> {
        if (fail) throw new ProviderUnavailableError('bankCodes', 'HTTP 503');
        return [{ bankCode: '1', bankName: 'X' }];
      },
    };
    const cache2: BankCodeCache = new Map();
    await expect(checkBankCode(flaky, 'IDR', '1', cache2)).rejects.toBeInstanceOf(ProviderUnavailableError);
    fail = false;
    await expect(checkBankCode(flaky, 'IDR', '1', cache2)).resolves.toEqual({ ok: true, bankName: 'X' });
  });
});

describe('createProviderClient', () => {
  it('names PROVIDER_BASE_URL when it is missing', async () => {
    await expect(createProviderClient(loadConfig({}))).rejects.toThrow(/PROVIDER_BASE_URL: not set/);
  });

  it('loads the signing scheme named by PROVIDER_SIGNATURE and signs with it', async () => {
    let signature: string | undefined;
    const server = http.createServer((req, res) => {
      signature = req.headers['signature'] as string;
      req.resume().on('end', () => res.end('{"code":"200","message":"SUCCESS","data":{"currency":"INR","deposit":"83.1","withdraw":84}}'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const config = loadConfig({
      PROVIDER_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      PROVIDER_SIGNATURE: 'module:test/fixtures/provider-custom-scheme.ts',
      PROVIDER_MERCHANT_ID: 'm-7',
      PROVIDER_SECRET: 'cfg-secret',
    });
    const client = await createProviderClient(config, { now: () => 1_700_000_000_000 });
    try {
      expect(await client.usdtRate('INR')).toEqual({ currency: 'INR', deposit: '83.1', withdraw: '84' });
    } finally {
      await client.close();
      server.close();
    }
    expect(signature).toBe(custom.sign({ timestamp: '1700000000', body: '{"currency":"INR"}', merchantId: 'm-7' }, 'cfg-secret'));
    await expect(
      createProviderClient(loadConfig({ PROVIDER_BASE_URL: 'http://127.0.0.1:9', PROVIDER_SIGNATURE: 'module:nope.ts' })),
    ).rejects.toThrow(/cannot load signing module/);
  });
});
