/**
 * The sign-in throttle under parallel guesses, over real HTTP. Each attempt is reserved before its
 * password is verified, so of any burst at most CONSOLE_LOGIN_MAX_FAILURES (5) are evaluated: 401
 * for an evaluated wrong password, 429 for every other one.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { addUsers, buildTestConsole, csrfIn, FixedClock, PASSWORD } from './helpers/console.ts';
import { waitFor } from './helpers/cli.ts';
import { forgiveLoginFailures, reserveLoginAttempt, settleLoginFailure } from '../src/db/console-login-failures.ts';

const WINDOW_AND_A_BIT = 16 * 60_000;

interface LoginForm {
  base: string;
  cookie: string;
  csrf: string;
}

/** The login form's double-submit cookie and token: one form serves every attempt of a burst. */
async function loginForm(base: string): Promise<LoginForm> {
  const res = await fetch(`${base}/login`);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('payrecon_login='))!
    .split(';')[0];
  return { base, cookie, csrf: csrfIn(await res.text())! };
}

async function attempt(form: LoginForm, name: string, password: string): Promise<number> {
  const res = await fetch(`${form.base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: form.csrf, name, password }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {});

describe.each(availableEngines)('login throttle under a burst, on %s', (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let base: string;
  const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

  beforeAll(async () => {
    t = await createTestDatabase(`console_burst_${engine}`, { engine });
    await addUsers(t, clock, { pat: 'viewer', adam: 'admin' });
    app = await buildTestConsole(t, clock);
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it('evaluates at most CONSOLE_LOGIN_MAX_FAILURES of 100 parallel wrong guesses; the rest are 429, and so is the right password after', async () => {
    const form = await loginForm(base);
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => attempt(form, 'pat', `wrong guess ${i}`)));
    expect(tally(statuses)).toEqual({ 401: 5, 429: 95 });
    expect(await attempt(form, 'pat', PASSWORD)).toBe(429);
    const failed = await t.db
      .knex('console_actions')
      .where({ action: 'login-failed', actor: 'pat' })
      .count<[{ count: string }]>('* as count');
    expect(Number(failed[0].count)).toBe(5);
    clock.advance(WINDOW_AND_A_BIT);
    expect(await attempt(form, 'pat', PASSWORD)).toBe(303);
  });

  // The interleaving a burst makes, step by step: which failures a sign-in forgives is decided when it is reserved.
  it('a sign-in forgives the name’s failures settled before it, not those of attempts verified alongside it', async () => {
    clock.advance(WINDOW_AND_A_BIT);
    const at = clock.now();
    const reserve = (address: string) =>
      reserveLoginAttempt(t.db.knex, {
        name: 'quinn',
        address,
        at,
        since: new Date(at.getTime() - 60_000),
        limits: { pair: 5, name: 20, address: 100 },
      });
    const earlier = (await reserve('10.8.0.1'))!;
    await settleLoginFailure(t.db.knex, earlier);
    const alongside = (await reserve('10.8.0.2'))!;
    const signIn = (await reserve('10.8.0.3'))!;
    const after = (await reserve('10.8.0.4'))!;
    expect(signIn.forgivable).toEqual([earlier.id]);
    await settleLoginFailure(t.db.knex, alongside);
    await forgiveLoginFailures(t.db.knex, signIn);
    await settleLoginFailure(t.db.knex, after);
    const left = await t.db.knex('console_login_failures').where({ name: 'quinn' }).orderBy('id').select('id', 'pending');
    expect(left).toEqual([
      { id: alongside.id, pending: false },
      { id: after.id, pending: false },
    ]);
  });

  describe.skipIf(engine !== 'postgres')('with the burst queued in a known order (Postgres: concurrent connections)', () => {
    /**
     * Holds the attempts table so every attempt of a burst waits in the server, then lets them go in
     * the order they arrived (Postgres grants waiting locks first come, first served).
     */
    async function queued(sends: Array<() => Promise<number>>): Promise<number[]> {
      const holder = new pg.Client({ connectionString: t.url });
      await holder.connect();
      const waiting = async () => {
        const r = await holder.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE d.datname = current_database() AND NOT l.granted`,
        );
        return r.rows[0].n;
      };
      try {
        await holder.query(`BEGIN; LOCK TABLE "${t.db.schema}".console_login_failures IN SHARE ROW EXCLUSIVE MODE`);
        const pending: Array<Promise<number>> = [];
        for (const send of sends) {
          pending.push(send());
          const n = pending.length;
          await waitFor(async () => (await waiting()) === n, 30_000, 20);
        }
        await holder.query('COMMIT');
        return await Promise.all(pending);
      } finally {
        await holder.end();
      }
    }

    it('a right password sent inside a burst after the limit was reached is refused (429)', async () => {
      clock.advance(WINDOW_AND_A_BIT);
      const form = await loginForm(base);
      const wrong = Array.from({ length: 7 }, (_, i) => () => attempt(form, 'adam', `wrong guess ${i}`));
      const statuses = await queued([...wrong, () => attempt(form, 'adam', PASSWORD)]);
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
    });
  });
});
