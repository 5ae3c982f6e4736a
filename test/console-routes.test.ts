/**
 * Every route the console registers, walked from its route table (not a hand-written list): its
 * declared access, that an anonymous request is refused, that a role without the permission is
 * refused, that a state-changing request without the CSRF token is refused, and that the route
 * table of docs/guides/console.md says the same.
 */
import fs from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { denyByDefault, routeTable, type RouteAccess } from '../src/console/route-access.ts';
import { can } from '../src/domain/roles.ts';
import type { Role } from '../src/db/console-users.ts';

let t: TestDatabase;
let app: FastifyInstance;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

beforeAll(async () => {
  t = await createTestDatabase('console_routes', {
    env: { PROVIDER_SECRET: 'console-routes-secret', PROVIDER_BASE_URL: 'http://127.0.0.1:9' },
  });
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance', adam: 'admin' });
  app = await buildTestConsole(t, clock);
});
afterAll(async () => {
  await app?.close();
  await t?.drop();
});

/** The routes anyone may call, and why: a new public route is a decision written here. */
const PUBLIC = new Set([
  'GET /login', // the sign-in page
  'POST /login', // signing in (its own CSRF cookie, checked by the route)
  'GET /console.css', // the login page's style
  'GET /favicon.ico', // asked for by browsers unprompted
]);

const ROLES: readonly Role[] = ['viewer', 'finance', 'admin'];
const USER: Record<Role, string> = { viewer: 'vera', finance: 'fiona', admin: 'adam' };
const safe = (r: RouteAccess) => r.method === 'GET' || r.method === 'HEAD';
/** A URL for the route: each parameter filled with a value of the right shape (the check runs before the handler). */
const urlOf = (r: RouteAccess) =>
  r.url.replace(/:(\w+)/g, (_m, name: string) => (name === 'date' ? '2026-11-21' : name === 'direction' ? 'payment' : '1'));
const key = (r: RouteAccess) => `${r.method === 'HEAD' ? 'GET' : r.method} ${r.url}`;
const mayCall = (role: Role, r: RouteAccess) => r.access === 'public' || r.access === 'session' || can(role, r.access);

describe('the route table', () => {
  it('holds every route the console serves, each with a declared access', () => {
    const routes = routeTable(app);
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.map((r) => r.url)).toContain('/days/:date');
    for (const r of routes) expect(['public', 'session', 'read', 'work-cases', 'rerun', 'manage-users'], key(r)).toContain(r.access);
  });

  it('public routes are exactly the listed ones', () => {
    const open = new Set(routeTable(app).flatMap((r) => (r.access === 'public' ? [key(r)] : [])));
    expect([...open].sort()).toEqual([...PUBLIC].sort());
  });

  it('a route registered without access stops the console at start-up, naming the route', () => {
    const bare = Fastify();
    denyByDefault(bare);
    bare.get('/ok', { config: { access: 'read' } }, async () => 'ok');
    expect(() => bare.get('/forgotten', async () => 'open to anyone')).toThrow(/console route GET \/forgotten declares no access/);
    expect(() => bare.post('/typo', { config: { access: 'reed' as never } }, async () => 'x')).toThrow(/POST \/typo declares no access/);
  });
});

describe('every registered route', () => {
  it('refuses an anonymous request unless public: a page redirects to sign in, anything else is 401', async () => {
    for (const r of routeTable(app)) {
      if (r.access === 'public') continue;
      const url = urlOf(r);
      const res = await app.inject({ method: r.method as 'GET', url, payload: safe(r) ? undefined : {} });
      if (safe(r)) {
        expect(res.statusCode, key(r)).toBe(302);
        expect(res.headers.location, key(r)).toBe(`/login?next=${encodeURIComponent(url)}`);
      } else expect(res.statusCode, key(r)).toBe(401);
    }
  });

  it('refuses a signed-in role without the permission (403), with a valid CSRF token', async () => {
    let checked = 0;
    for (const role of ROLES) {
      const agent = new Agent(app, `10.9.0.${ROLES.indexOf(role) + 1}`);
      expect((await agent.login(USER[role])).statusCode).toBe(303);
      for (const r of routeTable(app)) {
        if (mayCall(role, r) || r.method === 'HEAD') continue;
        const res = safe(r) ? await agent.get(urlOf(r)) : await agent.post(urlOf(r), {});
        expect(res.statusCode, `${role} ${key(r)}`).toBe(403);
        expect(res.body, `${role} ${key(r)}`).toContain(`Your role (${role}) may not do this.`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('lets a role with the permission past the check to the page', async () => {
    for (const role of ROLES) {
      const agent = new Agent(app, `10.9.1.${ROLES.indexOf(role) + 1}`);
      await agent.login(USER[role]);
      for (const r of routeTable(app)) {
        if (!mayCall(role, r) || r.method !== 'GET') continue;
        const res = await agent.get(urlOf(r));
        expect([401, 403], `${role} ${key(r)}: ${res.body.slice(0, 200)}`).not.toContain(res.statusCode);
      }
    }
  });

  it('refuses a state-changing request without the CSRF token (403), for a role that may make it', async () => {
    const agent = new Agent(app, '10.9.2.1');
    await agent.login('adam');
    const posts = routeTable(app).filter((r) => !safe(r) && r.access !== 'public');
    expect(posts.length).toBeGreaterThan(5);
    for (const r of posts) {
      const res = await agent.post(urlOf(r), {}, { csrf: null });
      expect(res.statusCode, key(r)).toBe(403);
      expect(res.body, key(r)).toContain('security token');
    }
    // The session survived every refusal (POST /logout among them).
    expect((await agent.get('/days')).statusCode).toBe(200);
  });
});

/** Who may call a route, as docs/reference/console-routes.md says it. */
const ROLE_WORD: Record<RouteAccess['access'], string> = {
  public: 'anyone',
  session: 'any signed-in user',
  read: 'viewer',
  'work-cases': 'finance',
  rerun: 'finance',
  'manage-users': 'admin',
};

/** Table rows of a docs page split into trimmed cells (the separator row left out). */
function tableRows(file: string, columns: number): string[][] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .filter((cells) => cells.length === columns + 2 && cells[1].startsWith('`'));
}

describe('docs/reference/console-routes.md', () => {
  it('lists every registered route and method with its role (and multipart where the route reads an upload), and nothing else', () => {
    const docs = new Map<string, string>();
    for (const [, urls, methods, role] of tableRows('docs/reference/console-routes.md', 4)) {
      for (const [, url] of urls.matchAll(/`([^`?]+)(?:\?[^`]*)?`/g))
        for (const m of methods.split(',').map((x) => x.trim()))
          docs.set(`${m.replace(' (multipart)', '')} ${url}`, `${role}|${m.includes('multipart')}`);
    }
    const registered = routeTable(app).filter((r) => r.method !== 'HEAD');
    expect([...docs.keys()].sort()).toEqual(registered.map(key).sort());
    for (const r of registered) {
      const [role, multipart] = docs.get(key(r))!.split('|');
      expect(role.startsWith(ROLE_WORD[r.access]), `${key(r)}: "${role}" should say ${ROLE_WORD[r.access]}`).toBe(true);
      expect(multipart, key(r)).toBe(String(r.csrf === 'upload'));
    }
  });
});

describe('docs/guides/console.md', () => {
  it('names only registered routes, with who may call them', () => {
    const registered = new Map(routeTable(app).map((r) => [key(r), r]));
    let named = 0;
    for (const [, routes, , ...cells] of tableRows('docs/guides/console.md', 5)) {
      for (const [, route] of routes.matchAll(/`([A-Z]+ [^`?]+)(?:\?[^`]*)?`/g)) {
        const r = registered.get(route);
        expect(r, `${route} is not a console route`).toBeDefined();
        expect(cells.slice(0, 3), route).toEqual(ROLES.map((role) => (mayCall(role, r!) ? '✓' : '403')));
        named++;
      }
    }
    expect(named).toBeGreaterThan(20);
  });
});
