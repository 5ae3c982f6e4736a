import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { stringifyBody } from '../src/provider/json.ts';
import { PATHS } from '../src/provider/types.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { signedPost } from './helpers/signed-post.ts';

/**
 * Issue 39: the sandbox answered while it was still adopting its CSVs, so a reconcile that started
 * as soon as the port was open saw NOT_FOUND for orders later lines would have adopted. While loading
 * it answers 503 with Retry-After, the API and the control interface alike; ready() ends it.
 */
const MERCHANT = { merchantId: 'demo-merchant', secret: 'demo-secret' };
let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const balance = () => signedPost({ baseUrl: sb!.url, ...MERCHANT }, PATHS.balance, stringifyBody({ currency: 'INR' }));
const control = async (op: string) => {
  const res = await request(`${sb!.url}/__control/${op}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
};

describe('a sandbox still loading its orders', () => {
  it('answers 503 with Retry-After to the API and the control interface, then serves once ready', async () => {
    sb = await startSandbox({ loading: true });
    const api = await balance();
    expect(api.status).toBe(503);
    expect(api.headers['retry-after']).toBe('1');
    expect(api.text).toContain('SANDBOX_LOADING');
    const ctl = await control('stats');
    expect(ctl.status).toBe(503);
    expect(ctl.text).toContain('SANDBOX_LOADING');

    sb.ready();
    expect((await balance()).status).toBe(200);
    expect((await control('stats')).status).toBe(200);
  });

  it('serves at once when not asked to load (the default)', async () => {
    sb = await startSandbox();
    expect((await balance()).status).toBe(200);
  });
});
