import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import custom from './fixtures/provider-custom-scheme.ts';

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
