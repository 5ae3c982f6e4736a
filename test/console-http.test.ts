import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock, PASSWORD } from './helpers/console.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { loadConfig } from '../src/config/config.ts';
import { findRerun, listReruns } from '../src/db/console-reruns.ts';
import { reportJob } from '../src/services/report.ts';
import { UsageError } from '../src/domain/errors.ts';
import { ADDRESS_LIMIT_FACTOR, NAME_LIMIT_FACTOR } from '../src/console/auth/sessions.ts';

const SECRET = 'console-test-provider-secret-value';
const MINUTE = 60_000;

let t: TestDatabase;
let app: FastifyInstance;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
let reportDir: string;
let versionId: string;

beforeAll(async () => {
  reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-console-reports-'));
  t = await createTestDatabase('console_http', {
    env: {
      PROVIDER_SECRET: SECRET,
      PROVIDER_BASE_URL: 'http://127.0.0.1:9',
      REPORT_DIR: reportDir,
      CONSOLE_IDLE_TIMEOUT_MIN: '30',
      CONSOLE_ABSOLUTE_TIMEOUT_MIN: '120',
    },
  });
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance', adam: 'admin', bob: 'finance' });
  const written = await writeReports(t.db, { date: '2026-11-21', timezone: 'UTC', reportDir, now: clock.now() });
  versionId = written.record!.id;
  app = await buildTestConsole(t, clock);
});
afterAll(async () => {
  await app?.close();
  await t?.drop();
  fs.rmSync(reportDir, { recursive: true, force: true });
});

/** Every route, with a request a user of that permission may make. */
const READ_PAGES = ['/', '/days', '/days/2026-11-21', '/reruns', '/jobs'];
const FINANCE_POSTS: Array<[string, Record<string, string>]> = [['/reruns', { date: '2026-11-21' }]];
const ADMIN_PAGES = ['/users'];
const ADMIN_POSTS: Array<[string, Record<string, string>]> = [['/users/bob/disable', {}]];

describe('without a session', () => {
  it('every page but /login redirects to the login page (302) and keeps where it was going', async () => {
    const agent = new Agent(app);
    for (const url of [...READ_PAGES, ...ADMIN_PAGES, `/reports/${versionId}/files/items.csv`, '/reruns/1']) {
      const res = await agent.get(url);
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location, url).toBe(`/login?next=${encodeURIComponent(url)}`);
    }
    expect((await agent.get('/login')).statusCode).toBe(200);
  });

  it('every state-changing request is 401', async () => {
    const agent = new Agent(app);
    for (const [url, form] of [...FINANCE_POSTS, ...ADMIN_POSTS, ['/logout', {}] as [string, Record<string, string>]]) {
      expect((await agent.post(url, form, { csrf: 'x' })).statusCode, url).toBe(401);
    }
  });
});

describe('roles', () => {
  it('a viewer reads every page and download, and gets 403 for reruns and user management', async () => {
    const agent = new Agent(app, '10.0.0.1');
    expect((await agent.login('vera')).statusCode).toBe(303);
    for (const url of READ_PAGES) expect((await agent.get(url)).statusCode, url).toBeLessThan(400);
    expect((await agent.get(`/reports/${versionId}/files/items.csv`)).statusCode).toBe(200);
    for (const url of ADMIN_PAGES) expect((await agent.get(url)).statusCode, url).toBe(403);
    for (const [url, form] of [...FINANCE_POSTS, ...ADMIN_POSTS]) expect((await agent.post(url, form)).statusCode, url).toBe(403);
    // No rerun button for a role that may not use it.
    expect((await agent.get('/days/2026-11-21')).body).not.toContain('Rerun this day');
  });

  it('finance starts reruns, and gets 403 for user management', async () => {
    const agent = new Agent(app, '10.0.0.2');
    await agent.login('fiona');
    for (const url of ADMIN_PAGES) expect((await agent.get(url)).statusCode, url).toBe(403);
    for (const [url, form] of ADMIN_POSTS) expect((await agent.post(url, form)).statusCode, url).toBe(403);
    const res = await agent.post('/reruns', { date: '2026-11-21' });
    expect(res.statusCode).toBe(303);
    const id = /\/reruns\/(\d+)$/.exec(res.headers.location as string)![1];
    const rerun = await findRerun(t.db.knex, id);
    expect(rerun).toMatchObject({ businessDate: '2026-11-21', state: 'queued', requestedBy: 'fiona' });
    expect((await agent.get(`/reruns/${id}`)).body).toContain('waiting in the queue');
    expect((await agent.post('/reruns', { date: '../../etc' })).statusCode).toBe(400);
  });

  it('refuses to queue a rerun of a day `payrecon report --date` refuses (not begun, out of range), with its message', async () => {
    const agent = new Agent(app, '10.0.0.5');
    await agent.login('fiona');
    const before = (await listReruns(t.db.knex)).length;
    for (const date of ['2099-01-01', '2026-11-23', '0001-01-01', '9999-12-31']) {
      // What the CLI says for the same date (validated before any database is opened).
      const cli = await reportJob({ date, now: clock.now }, { config: t.config }).catch((e: unknown) => e);
      expect(cli, date).toBeInstanceOf(UsageError);
      const res = await agent.post('/reruns', { date });
      expect(res.statusCode, date).toBe(400);
      expect(res.body, date).toContain(`date: ${(cli as Error).message}`);
    }
    expect((await listReruns(t.db.knex)).length).toBe(before);
    // Today has begun: the CLI reports it (as partial), so a rerun of it is queued.
    expect((await agent.post('/reruns', { date: '2026-11-22' })).statusCode).toBe(303);
  });

  it('an admin manages users: disabling one ends their sessions', async () => {
    const bob = new Agent(app, '10.0.0.3');
    await bob.login('bob');
    expect((await bob.get('/days')).statusCode).toBe(200);
    const admin = new Agent(app, '10.0.0.4');
    await admin.login('adam');
    expect((await admin.get('/users')).statusCode).toBe(200);
    expect((await admin.post('/users/bob/disable')).statusCode).toBe(303);
    expect((await bob.get('/days')).statusCode).toBe(302);
    expect((await bob.login('bob')).statusCode).toBe(401);
  });
});

describe('CSRF', () => {
  it('refuses a state-changing request without the token, or with another session’s', async () => {
    const a = new Agent(app, '10.0.1.1');
    await a.login('fiona');
    const b = new Agent(app, '10.0.1.2');
    await b.login('fiona');
    expect((await a.post('/reruns', { date: '2026-11-20' }, { csrf: null })).statusCode).toBe(403);
    expect((await a.post('/reruns', { date: '2026-11-20' }, { csrf: b.csrf })).statusCode).toBe(403);
    expect((await a.post('/logout', {}, { csrf: null })).statusCode).toBe(403);
    // Still signed in: the refused logout did nothing.
    expect((await a.get('/days')).statusCode).toBe(200);
    // The header works for scripts.
    expect((await a.post('/reruns', { date: '2026-11-20' }, { csrf: null, headers: { 'x-csrf-token': a.csrf! } })).statusCode).toBe(303);
  });

  it('refuses a login post without the login form’s token', async () => {
    const agent = new Agent(app, '10.0.1.3');
    const res = await agent.post('/login', { name: 'fiona', password: PASSWORD }, { csrf: null });
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie'] ?? '').not.toContain('payrecon_session');
  });
});

describe('login', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie (not Secure over plain http) and never shows the password', async () => {
    const agent = new Agent(app, '10.0.2.1');
    const res = await agent.login('fiona');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('payrecon_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const failed = await new Agent(app, '10.0.2.2').login('fiona', 'wrong password here');
    expect(failed.statusCode).toBe(401);
    expect(failed.body).toContain('Wrong user name or password');
    expect(failed.body).not.toContain('wrong password here');
  });

  it('behind a TLS-terminating proxy (CONSOLE_PUBLIC_URL https, plain http to us) sets Secure cookies; without it not', async () => {
    const sessionCookie = (res: { headers: Record<string, unknown> }, name: string) =>
      ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []).find((c) => c.startsWith(`${name}=`))!;
    for (const [publicUrl, secure] of [
      ['https://recon.example.com', true],
      ['http://127.0.0.1:8090', false],
      [undefined, false],
    ] as const) {
      const config = loadConfig({
        DATABASE_URL: t.url ?? '',
        PGLITE_DIR: t.config.PGLITE_DIR,
        ...(publicUrl ? { CONSOLE_PUBLIC_URL: publicUrl } : {}),
      });
      const proxied = await buildTestConsole(t, clock, config);
      try {
        const agent = new Agent(proxied, '10.0.2.4');
        const form = await agent.get('/login');
        const res = await agent.login('fiona');
        expect(res.statusCode).toBe(303);
        for (const cookie of [sessionCookie(form, 'payrecon_login'), sessionCookie(res, 'payrecon_session')]) {
          expect(cookie, String(publicUrl)).toMatch(/HttpOnly/);
          if (secure) expect(cookie, String(publicUrl)).toMatch(/; Secure/);
          else expect(cookie, String(publicUrl)).not.toMatch(/Secure/);
        }
      } finally {
        await proxied.close();
      }
    }
    expect(() => loadConfig({ CONSOLE_PUBLIC_URL: 'recon.example.com' })).toThrow(
      /CONSOLE_PUBLIC_URL: expected a URL such as https:\/\/recon.example.com \(starting with http:\/\/ or https:\/\/\)/,
    );
  });

  it('redirects only to local paths after login', async () => {
    const agent = new Agent(app, '10.0.2.3');
    await agent.get('/login');
    const res = await agent.post('/login', { name: 'fiona', password: PASSWORD, next: '//evil.example/x' });
    expect(res.headers.location).toBe('/days');
  });

  // Issue 35 #6: a name is limited per address (5) and across addresses (5 x NAME_LIMIT_FACTOR).
  it('throttles per user name: after the limit even the right password is refused', async () => {
    await addUsers(t, clock, { tina: 'viewer' });
    for (let i = 0; i < 5 * NAME_LIMIT_FACTOR; i++)
      expect((await new Agent(app, `10.0.3.${i}`).login('tina', 'not the password')).statusCode).toBe(401);
    const res = await new Agent(app, '10.0.3.99').login('tina');
    expect(res.statusCode).toBe(429);
    expect(res.body).toContain('Too many failed sign-ins');
    clock.advance(16 * MINUTE);
    expect((await new Agent(app, '10.0.3.99').login('tina')).statusCode).toBe(303);
  });

  // Far above one person's mistakes (5 x ADDRESS_LIMIT_FACTOR), so a shared proxy address is not locked out by five.
  it('throttles per address: one address guessing many names is stopped', async () => {
    for (let i = 0; i < 5 * ADDRESS_LIMIT_FACTOR; i++)
      expect((await new Agent(app, '10.0.4.1').login(`nobody${i}`, 'guess')).statusCode).toBe(401);
    expect((await new Agent(app, '10.0.4.1').login('fiona')).statusCode).toBe(429);
    expect((await new Agent(app, '10.0.4.2').login('fiona')).statusCode).toBe(303);
    clock.advance(16 * MINUTE);
  });
});

describe('sessions', () => {
  it('end after the idle timeout', async () => {
    const agent = new Agent(app, '10.0.5.1');
    await agent.login('fiona');
    clock.advance(29 * MINUTE);
    expect((await agent.get('/days')).statusCode).toBe(200);
    clock.advance(29 * MINUTE);
    expect((await agent.get('/days')).statusCode).toBe(200);
    clock.advance(30 * MINUTE);
    expect((await agent.get('/days')).statusCode).toBe(302);
    // Ended for good: moving the clock back does not revive it.
    clock.advance(-30 * MINUTE);
    expect((await agent.get('/days')).statusCode).toBe(302);
    clock.advance(30 * MINUTE);
  });

  it('end after the absolute timeout however active', async () => {
    const agent = new Agent(app, '10.0.5.2');
    await agent.login('fiona');
    for (let i = 0; i < 5; i++) {
      clock.advance(20 * MINUTE);
      expect((await agent.get('/jobs')).statusCode).toBe(200);
    }
    clock.advance(20 * MINUTE);
    expect((await agent.get('/jobs')).statusCode).toBe(302);
  });

  it('logout really ends the session: the old cookie no longer works', async () => {
    const agent = new Agent(app, '10.0.5.3');
    await agent.login('fiona');
    const token = agent.jar.get('payrecon_session')!;
    expect((await agent.post('/logout')).headers.location).toBe('/login');
    const replay = new Agent(app, '10.0.5.3');
    replay.jar.set('payrecon_session', token);
    expect((await replay.get('/days')).statusCode).toBe(302);
  });
});

describe('downloads', () => {
  it('serve a file the version lists, by version id, as an attachment', async () => {
    const agent = new Agent(app, '10.0.6.1');
    await agent.login('vera');
    const res = await agent.get(`/reports/${versionId}/files/summary_orders.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="payrecon-2026-11-21-v1-summary_orders.csv"');
    expect(res.body).toBe(fs.readFileSync(path.join(reportDir, '2026-11-21', 'v1', 'summary_orders.csv'), 'utf8'));
    // The day page links downloads by id, never by path.
    const day = await agent.get('/days/2026-11-21');
    expect(day.body).toContain(`href="/reports/${versionId}/files/items.csv"`);
    expect(day.body).not.toContain(reportDir);
  });

  it('refuse anything that is not a listed file of an existing version', async () => {
    const agent = new Agent(app, '10.0.6.2');
    await agent.login('vera');
    fs.writeFileSync(path.join(reportDir, '2026-11-21', 'v1', 'extra.csv'), 'not listed\n');
    for (const url of [
      `/reports/${versionId}/files/extra.csv`,
      `/reports/${versionId}/files/..%2F..%2FCURRENT`,
      `/reports/${versionId}/files/%2Fetc%2Fpasswd`,
      `/reports/${versionId}/files/CURRENT`,
      '/reports/999999/files/items.csv',
      '/reports/..%2F2026-11-21/files/items.csv',
      '/reports/0/files/items.csv',
    ]) {
      expect((await agent.get(url)).statusCode, url).toBe(404);
    }
  });
});

describe('pages', () => {
  it('never show a secret, and send security headers', async () => {
    const agent = new Agent(app, '10.0.7.1');
    await agent.login('adam');
    for (const url of [...READ_PAGES, ...ADMIN_PAGES, '/login']) {
      const res = await agent.get(url);
      const shown = res.statusCode === 302 ? (await agent.get(res.headers.location as string)).body : res.body;
      expect(shown, url).not.toContain(SECRET);
      expect(shown, url).not.toContain('$argon2');
    }
    const res = await agent.get('/days');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('escape what they show', async () => {
    const agent = new Agent(app, '10.0.7.2');
    await agent.login('fiona');
    const res = await agent.get('/days/<script>');
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('<script>');
    expect(res.body).toContain('&lt;script&gt;');
  });
});

describe('trusted proxy mode', () => {
  it('is off by default: the header signs nobody in', async () => {
    const res = await app.inject({ method: 'GET', url: '/days', headers: { 'x-forwarded-user': 'fiona' } });
    expect(res.statusCode).toBe(302);
  });

  it('signs in the named user only from the configured upstream, with a Secure cookie over https', async () => {
    const config = loadConfig({
      DATABASE_URL: t.url ?? '',
      PGLITE_DIR: t.config.PGLITE_DIR,
      CONSOLE_TRUSTED_PROXY: '10.9.9.9',
      CONSOLE_PROXY_USER_HEADER: 'X-Forwarded-User',
    });
    const proxied = await buildTestConsole(t, clock, config);
    try {
      const viaProxy = await proxied.inject({
        method: 'GET',
        url: '/days',
        remoteAddress: '10.9.9.9',
        headers: { 'x-forwarded-user': 'fiona', 'x-forwarded-proto': 'https', 'x-forwarded-for': '192.0.2.7' },
      });
      expect(viaProxy.statusCode).toBe(200);
      expect(viaProxy.body).toContain('fiona (finance)');
      const cookie = ([] as string[]).concat(viaProxy.headers['set-cookie'] ?? []).join(';');
      expect(cookie).toMatch(/Secure/);
      const direct = await proxied.inject({
        method: 'GET',
        url: '/days',
        remoteAddress: '10.0.0.50',
        headers: { 'x-forwarded-user': 'fiona' },
      });
      expect(direct.statusCode).toBe(302);
      const unknown = await proxied.inject({
        method: 'GET',
        url: '/days',
        remoteAddress: '10.9.9.9',
        headers: { 'x-forwarded-user': 'mallory' },
      });
      expect(unknown.statusCode).toBe(403);
    } finally {
      await proxied.close();
    }
  });
});

describe('audit of console actions', () => {
  it('records logins, refusals and reruns, and refuses to change or delete a row', async () => {
    const actions = await t.db.knex('console_actions').select('action');
    const kinds = new Set(actions.map((a: { action: string }) => a.action));
    for (const k of ['login', 'login-failed', 'login-throttled', 'logout', 'rerun-queued', 'user-disabled']) expect(kinds, k).toContain(k);
    await expect(t.db.knex('console_actions').update({ actor: 'someone else' })).rejects.toThrow(/append-only/);
    await expect(t.db.knex('console_actions').delete()).rejects.toThrow(/append-only/);
  });
});

describe('the jobs page marks a stalled run and a dry run', () => {
  it('a reconcile with no progress past RUN_STALL_AFTER_SECONDS (900) is stalled since its last progress; a dry run says so', async () => {
    const now = clock.now();
    const ids = await t.db
      .knex('job_runs')
      .insert([
        {
          job: 'reconcile',
          status: 'running',
          started_at: new Date(now.getTime() - 60 * MINUTE),
          heartbeat_at: new Date(now.getTime() - 20 * MINUTE),
          pid: 5120,
          host: 'worker-1',
        },
        { job: 'bank-codes', status: 'completed', dry_run: true, started_at: now, heartbeat_at: now, finished_at: now },
      ])
      .returning('id');
    try {
      const agent = new Agent(app, '10.0.9.1');
      await agent.login('vera');
      const body = (await agent.get('/jobs')).body;
      const since = new Date(now.getTime() - 20 * MINUTE).toISOString().slice(11, 16); // REPORT_TIMEZONE is UTC here
      expect(body).toMatch(new RegExp(`stalled: no progress since [^<]*${since}`));
      expect(body).toContain('dry run');
    } finally {
      await t.db
        .knex('job_runs')
        .whereIn(
          'id',
          ids.map((r: { id: string }) => r.id),
        )
        .delete();
    }
  });
});
