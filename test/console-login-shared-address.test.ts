/**
 * Issue 35, item 6: one address must not lock out every user. Behind a proxy with no
 * CONSOLE_TRUSTED_PROXY every client shares the proxy's address: five failed sign-ins with made-up
 * names from it used to answer 429 to a real user's right password. The throttle is per name from an
 * address (5), per name (20) and per address (100), and a request with forwarding headers and no
 * trusted proxy is warned about in the log.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { addUsers, csrfIn, FixedClock, PASSWORD } from './helpers/console.ts';
import { buildConsole } from '../src/console/app.ts';
import { login, ADDRESS_LIMIT_FACTOR, NAME_LIMIT_FACTOR } from '../src/console/auth/sessions.ts';
import { sessionPolicy } from '../src/console/http-kit.ts';
import { createLogger } from '../src/log/logger.ts';

describe('sign-in throttle with a shared address', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let base: string;
  const lines: string[] = [];
  const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

  beforeAll(async () => {
    t = await createTestDatabase('h35_login_shared');
    await addUsers(t, clock, { pat: 'viewer', rosa: 'viewer', sam: 'viewer' });
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    app = await buildConsole({ db: t.db, config: t.config, now: clock.now, logger });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  async function attempt(name: string, password: string, headers: Record<string, string> = {}): Promise<number> {
    const form = await fetch(`${base}/login`, { headers });
    const cookie = form.headers
      .getSetCookie()
      .find((c) => c.startsWith('payrecon_login='))!
      .split(';')[0];
    const csrf = csrfIn(await form.text())!;
    const res = await fetch(`${base}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, name, password }).toString(),
    });
    await res.arrayBuffer();
    return res.status;
  }

  it("five failed sign-ins with made-up names from the proxy's address do not lock out a real user; the proxy is warned about", async () => {
    const viaProxy = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' };
    for (let i = 0; i < 5; i++) expect(await attempt(`nobody-${i}`, 'guess', viaProxy)).toBe(401);
    expect(await attempt('pat', PASSWORD, viaProxy)).toBe(303);
    const warnings = lines.filter((l) => l.includes('CONSOLE_TRUSTED_PROXY is not set'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0])).toMatchObject({ level: 40, header: 'x-forwarded-for' });
  });

  const policy = () => sessionPolicy(t.config);
  const tryAs = (name: string, address: string, password = 'wrong') =>
    login(t.db.knex, policy(), { name, password, address, now: clock.now() });

  it("one person's mistakes: the name is refused from that address after 5, still allowed from another", async () => {
    clock.advance(16 * 60_000);
    for (let i = 0; i < 5; i++) expect(await tryAs('rosa', '10.0.0.1')).toEqual({ ok: false, reason: 'invalid' });
    expect(await tryAs('rosa', '10.0.0.1', PASSWORD)).toEqual({ ok: false, reason: 'throttled' });
    expect((await tryAs('rosa', '10.0.0.2', PASSWORD)).ok).toBe(true);
  });

  it('guesses at one name spread over addresses stop at the per-name limit', async () => {
    clock.advance(16 * 60_000);
    const perName = policy().maxFailures * NAME_LIMIT_FACTOR;
    for (let i = 0; i < perName; i++) expect((await tryAs('sam', `10.1.${i}.1`)).ok).toBe(false);
    expect(await tryAs('sam', '10.2.0.1', PASSWORD)).toEqual({ ok: false, reason: 'throttled' });
  });

  it('an address is refused only far above one person’s mistakes', async () => {
    clock.advance(16 * 60_000);
    const perAddress = policy().maxFailures * ADDRESS_LIMIT_FACTOR;
    for (let i = 0; i < perAddress; i++) expect(await tryAs(`made-up-${i}`, '198.51.100.9')).toEqual({ ok: false, reason: 'invalid' });
    expect(await tryAs('pat', '198.51.100.9', PASSWORD)).toEqual({ ok: false, reason: 'throttled' });
  });
});
