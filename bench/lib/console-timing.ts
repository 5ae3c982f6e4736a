/**
 * The console's pages timed in-process (fastify inject, no socket): a viewer signs in once, then each
 * page is asked for until at least MIN_SAMPLE_MS passed (a page of milliseconds is too short to time once),
 * and its time per request is that sample's mean; the median of `reps` samples is returned.
 */
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { buildConsole } from '../../src/console/app.ts';
import { addUser } from '../../src/console/users.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

const MIN_SAMPLE_MS = 300;
const PASSWORD = 'bench console password 0123';

export interface ConsolePage {
  name: string;
  /** The URL to ask for, found on this database (a case id, a ref). */
  url: (q: (sql: string) => Promise<string>) => Promise<string>;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cookiesOf(res: LightMyRequestResponse, jar: Map<string, string>): void {
  for (const c of res.cookies as Array<{ name: string; value: string }>) jar.set(c.name, c.value);
}

async function signIn(app: FastifyInstance, name: string): Promise<string> {
  const jar = new Map<string, string>();
  const form = await app.inject({ method: 'GET', url: '/login' });
  cookiesOf(form, jar);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1];
  if (!csrf) throw new Error('console: no CSRF token on /login');
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, name, password: PASSWORD }).toString(),
  });
  if (res.statusCode !== 303) throw new Error(`console: sign-in answered ${res.statusCode}`);
  cookiesOf(res, jar);
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** Median ms per request of each page on the database at `env.DATABASE_URL`. */
export async function timeConsolePages(env: Record<string, string | undefined>, pages: ConsolePage[], reps: number): Promise<number[]> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const db = await openDatabase(config, { poolMax: 4 });
  const app = await buildConsole({ db, config, now: () => new Date(), logger: silentLogger });
  try {
    const name = `bench${Date.now().toString(36)}`;
    await addUser(db.knex, { name, role: 'viewer', password: PASSWORD, actor: { name: 'bench' }, now: new Date() });
    const cookie = await signIn(app, name);
    const q = async (sql: string) => String(((await db.knex.raw(sql)) as { rows: Array<{ v: unknown }> }).rows[0]?.v ?? '');
    const out: number[] = [];
    for (const p of pages) {
      const url = await p.url(q);
      const ask = async () => {
        const res = await app.inject({ method: 'GET', url, headers: { cookie } });
        // 303: a search that found one order sends the browser to it.
        if (res.statusCode !== 200 && res.statusCode !== 303) throw new Error(`console ${p.name}: GET ${url} answered ${res.statusCode}`);
      };
      await ask(); // warm: the first request compiles templates and fills caches
      const samples: number[] = [];
      for (let i = 0; i < reps; i++) {
        let n = 0;
        const start = performance.now();
        while (performance.now() - start < MIN_SAMPLE_MS) {
          await ask();
          n++;
        }
        samples.push((performance.now() - start) / n);
      }
      out.push(median(samples));
    }
    return out;
  } finally {
    await app.close();
    await db.close();
  }
}
