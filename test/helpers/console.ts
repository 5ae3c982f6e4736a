/**
 * The console in-process for HTTP tests (fastify's inject, no socket): a fixed clock the test moves,
 * users of each role, and a signed-in agent that keeps its cookies and CSRF token.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildConsole } from '../../src/console/app.ts';
import { addUser } from '../../src/console/users.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { TestDatabase } from './db.ts';
import type { Config } from '../../src/config/config.ts';

export const PASSWORD = 'correct horse battery staple';

export class FixedClock {
  constructor(public t: Date) {}
  now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t = new Date(this.t.getTime() + ms);
  }
}

export async function buildTestConsole(t: TestDatabase, clock: FixedClock, config: Config = t.config): Promise<FastifyInstance> {
  return buildConsole({ db: t.db, config, now: clock.now, logger: silentLogger });
}

export async function addUsers(t: TestDatabase, clock: FixedClock, names: Record<string, 'viewer' | 'finance' | 'admin'>): Promise<void> {
  for (const [name, role] of Object.entries(names)) {
    await addUser(t.db.knex, { name, role, password: PASSWORD, actor: { name: 'test' }, now: clock.now() });
  }
}

/** Cookies from Set-Cookie headers, merged into a jar. */
function absorb(jar: Map<string, string>, res: LightMyRequestResponse): void {
  for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
    if (c.value === '' || (c.expires && c.expires.getTime() <= Date.now())) jar.delete(c.name);
    else jar.set(c.name, c.value);
  }
}

export const csrfIn = (body: string): string | null => /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? null;

/** A browser-like client over inject: cookies kept, the page's CSRF token remembered. */
export class Agent {
  jar = new Map<string, string>();
  csrf: string | null = null;
  constructor(
    readonly app: FastifyInstance,
    readonly remoteAddress = '127.0.0.1',
  ) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({
      method: 'GET',
      url,
      headers: { cookie: this.cookieHeader(), ...headers },
      remoteAddress: this.remoteAddress,
    });
    absorb(this.jar, res);
    const token = csrfIn(res.body);
    if (token) this.csrf = token;
    return res;
  }

  /** A form post; the remembered CSRF token is added unless the form has its own _csrf (or null to send none). */
  async post(
    url: string,
    form: Record<string, string> = {},
    opts: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    const fields = { ...(token !== null && form._csrf === undefined ? { _csrf: token } : {}), ...form };
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...opts.headers },
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: this.remoteAddress,
    });
    absorb(this.jar, res);
    return res;
  }

  async login(name: string, password = PASSWORD): Promise<LightMyRequestResponse> {
    await this.get('/login');
    const res = await this.post('/login', { name, password });
    // Like a browser: land on the page, which carries the session's CSRF token.
    if (res.statusCode === 303) await this.get(res.headers.location as string);
    return res;
  }
}
