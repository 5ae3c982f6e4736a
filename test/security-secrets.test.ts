/**
 * Secrets never leave: known secret values (provider signing key, SMTP password, alert webhook
 * token, database password) go into real child processes — `payrecon demo`, a report e-mailed over
 * a real SMTP server with AUTH, then failing runs (the provider refuses the signature with 403, the
 * SMTP server refuses AUTH quoting the password) — and are searched for everywhere they could leak:
 * stdout and stderr, report files, every row of every payrecon table (as text), e-mails received and
 * alert webhook bodies. Also: SQL is parameterised where user input flows.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { ROOT, runCli, type CliResult } from './helpers/cli.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { countOrders, selectOrdersPage } from '../src/db/orders.ts';
import { defaultPolicy } from '../src/recon/policy.ts';
import { silentLogger } from '../src/log/logger.ts';
import { loadConfig } from '../src/config/config.ts';
import { REDACTED, scrub, secretValues } from '../src/config/redact.ts';

const PROVIDER_SECRET = 'known-secret-XYZ';
const SMTP_USER = 'payrecon-mailer';
const SMTP_PASSWORD = 'smtp-pass-Zq81-known';
const HOOK_TOKEN = 'hook-token-Wv55-known';
const DB_PASSWORD = 'db-pass-Lm02-known';
/** A key with the characters that JSON-escaping, URL-encoding and base64 change. */
const SLASHY_SECRET = 'k3y/With/Slashes+Base64==';
const SECRETS = [PROVIDER_SECRET, SMTP_PASSWORD, HOOK_TOKEN, DB_PASSWORD, SLASHY_SECRET];
/** How a secret can come back from a server or a library: as is, JSON-escaped (also `\/`), URL-encoded, base64. */
const formsOf = (s: string) => [
  s,
  JSON.stringify(s).slice(1, -1).replaceAll('/', '\\/'),
  encodeURIComponent(s),
  Buffer.from(s).toString('base64').replace(/=+$/, ''),
];

const SQL_TEXT = "x'; DROP TABLE payment_orders;--";

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe.skipIf(requiresServer('the demo and the CLI runs share a Postgres database'))('secrets never leave', () => {
  let t: TestDatabase;
  let smtp: SMTPServer;
  let hooks: http.Server;
  let echo: http.Server;
  let echoUrl: string;
  let wrongSandbox: Sandbox;
  let work: string;
  let env: Record<string, string>;
  let refuseAuth = false;
  const mails: string[] = [];
  const hookBodies: string[] = [];
  const outputs: Array<{ what: string; r: CliResult }> = [];
  const today = new Date().toISOString().slice(0, 10);

  const run = async (what: string, args: string[], extra: Record<string, string> = {}) => {
    const r = await runCli(args, { ...env, ...extra }, work);
    outputs.push({ what, r });
    return r;
  };

  beforeAll(async () => {
    t = await createTestDatabase('security_secrets');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-secrets-'));
    smtp = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, cb) => {
        if (refuseAuth || auth.password !== SMTP_PASSWORD) cb(new Error(`535 password ${auth.password} refused for ${auth.username}`));
        else cb(null, { user: auth.username });
      },
      onData: (stream, _session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push(Buffer.concat(chunks).toString('utf8'));
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    hooks = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hookBodies.push(`${req.url}\n${JSON.stringify(req.headers)}\n${body}`);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    echo = http.createServer((req, res) => {
      req.resume();
      const echoed = formsOf(SLASHY_SECRET).slice(1).join(' and ');
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(`{"code":"500","message":"signature check failed for key ${echoed}"}`);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}`;
    wrongSandbox = await startSandbox({ merchants: [{ id: 'demo-merchant', secret: 'the-provider-has-another-secret' }] });

    const dbUrl = new URL(t.url!);
    dbUrl.password = DB_PASSWORD; // trust auth ignores it
    env = {
      DATABASE_URL: dbUrl.toString(),
      PROVIDER_SECRET,
      SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${(smtp.server.address() as { port: number }).port}`,
      REPORT_EMAIL_TO: 'accounting@example.com',
      ALERT_WEBHOOK_URL: `http://127.0.0.1:${(hooks.address() as { port: number }).port}/services/T000/${HOOK_TOKEN}`,
      ALERT_EMAIL_TO: 'ops@example.com',
      REPORT_DIR: path.join(work, 'reports'),
      LOG_LEVEL: 'debug',
    };

    // 1. The demo (its own sandbox signs with PROVIDER_SECRET), into schema payrecon_demo.
    const demo = await run('demo', ['demo', '--payments', '120', '--payouts', '80', '--data-dir', path.join(work, 'demo')]);
    expect(demo.code, demo.stderr).toBe(0);
    const demoDb = { DATABASE_SCHEMA: 'payrecon_demo' };
    // 2. Its report e-mailed through SMTP with AUTH.
    const mailed = await run('report --email', ['report', '--date', today, '--email', '--json'], demoDb);
    expect(mailed.code, mailed.stderr).toBe(0);
    // 3. Failing runs: the provider refuses the signature (403), then the SMTP server refuses AUTH.
    const refused = await run('reconcile with a wrong secret', ['reconcile', '--date', today], {
      ...demoDb,
      PROVIDER_BASE_URL: wrongSandbox.url,
    });
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    const snapRefused = await run('snapshot with a wrong secret', ['snapshot'], { ...demoDb, PROVIDER_BASE_URL: wrongSandbox.url });
    expect(snapRefused.code).toBe(2);
    // 4. A provider answering 500 with a body that echoes the key JSON-escaped, URL-encoded and in base64.
    const slashy = await run('reconcile against a provider echoing the key in a 500', ['reconcile', '--date', today], {
      ...demoDb,
      PROVIDER_BASE_URL: echoUrl,
      PROVIDER_SECRET: SLASHY_SECRET,
      PROVIDER_MAX_RETRIES: '0',
    });
    expect(slashy.code).toBe(2);
    // 5. A mistyped DATABASE_URL scheme, and an unreachable host, with the password in the URL.
    await run('a mistyped DATABASE_URL', ['status'], { DATABASE_URL: `postgress://postgres:${DB_PASSWORD}@127.0.0.1/rt1` });
    await run('DATABASE_URL on a closed port', ['status'], { DATABASE_URL: `postgres://postgres:${DB_PASSWORD}@127.0.0.1:1/rt1` });
    refuseAuth = true;
    const noAuth = await run('report --email with SMTP AUTH refused', ['report', '--date', today, '--email', '--force'], demoDb);
    expect(noAuth.code).toBe(2);
  }, 120_000);
  afterAll(async () => {
    await wrongSandbox?.close();
    await new Promise<void>((resolve) => (hooks ? hooks.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
    await t?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const leaks = (text: string) => SECRETS.flatMap(formsOf).filter((s) => text.includes(s));

  it('the runs did what the test needs: mail and alerts delivered, the refusals recorded', async () => {
    expect(mails.length).toBeGreaterThanOrEqual(1);
    expect(hookBodies.length).toBeGreaterThanOrEqual(1);
    const k = t.db.knex;
    const failedRuns = await k.withSchema('payrecon_demo').table('job_runs').whereNotNull('error').pluck('error');
    expect(failedRuns.join('\n')).toMatch(/credentials|PROVIDER_SECRET/);
    // The echoing provider's answer was recorded (scrubbed), so there was something to leak.
    const items = await k
      .withSchema('payrecon_demo')
      .table('recon_items')
      .where('reason', 'like', '%signature check failed%')
      .pluck('reason');
    expect(items.length + failedRuns.filter((e: string) => e.includes('signature check failed')).length).toBeGreaterThan(0);
    const emailErrors = await k.withSchema('payrecon_demo').table('report_versions').whereNotNull('email_error').pluck('email_error');
    expect(emailErrors.join('\n')).toMatch(/refused|535|auth/i);
  });

  it('no secret in any stdout or stderr', () => {
    for (const { what, r } of outputs) expect(leaks(r.stdout + r.stderr), what).toEqual([]);
    // LOG_LEVEL=debug: there was plenty to leak from.
    expect(outputs.reduce((n, o) => n + o.r.stderr.length, 0)).toBeGreaterThan(1000);
  });

  it('no secret in any report file', () => {
    const files = walk(path.join(work, 'reports'));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) expect(leaks(fs.readFileSync(f, 'utf8')), f).toEqual([]);
  });

  it('no secret in any row of any payrecon table (runs, alerts, report versions, everything)', async () => {
    const tables = await t.db.knex.raw(
      `SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('payrecon', 'payrecon_demo') AND table_type = 'BASE TABLE'`,
    );
    expect(tables.rows.length).toBeGreaterThan(10);
    for (const { table_schema, table_name } of tables.rows as Array<{ table_schema: string; table_name: string }>) {
      const rows = await t.db.knex.raw(`SELECT t::text AS row FROM ${table_schema}.${table_name} t`);
      const text = (rows.rows as Array<{ row: string }>).map((r) => r.row).join('\n');
      expect(leaks(text), `${table_schema}.${table_name}`).toEqual([]);
    }
  });

  it('no secret in the e-mails received or the alert webhook bodies', () => {
    for (const m of mails) expect(leaks(m)).toEqual([]);
    for (const b of hookBodies) expect(leaks(b.split('\n').slice(2).join('\n'))).toEqual([]); // the URL itself carries the token
  });

  it('a --ref holding SQL is text to the database: it selects nothing and the tables survive', async () => {
    const k = t.db.knex;
    // Below the CLI's own check (which refuses such a ref with exit 3, see cli-input.test.ts).
    expect(await countOrders(k, 'payment', { mode: 'ref', ref: SQL_TEXT })).toBe(0);
    expect(await selectOrdersPage(k, 'payout', { mode: 'ref', ref: SQL_TEXT }, null, 10)).toEqual([]);
    const outcome = await reconcile(
      {
        db: t.db,
        fetcher: {
          fetchPayment: () => Promise.reject(new Error('no fetch expected')),
          fetchPayout: () => Promise.reject(new Error('no fetch expected')),
        },
        policy: defaultPolicy(),
        clock: () => new Date(),
        logger: silentLogger,
        concurrency: 2,
        batchSize: 10,
      },
      { selection: { mode: 'ref', ref: SQL_TEXT }, dryRun: false },
    );
    expect(outcome.status).toBe('completed');
    expect(outcome.runs.at(-1)).toMatchObject({ selected: 0, checked: 0 });
    const stored = await k('job_runs')
      .where({ id: outcome.runs.at(-1)!.runId })
      .first();
    expect(stored.params.selection.ref).toBe(SQL_TEXT); // stored verbatim, as a bound value
    const exists = await k.raw(`SELECT to_regclass('payrecon.payment_orders') AS p, to_regclass('payrecon_demo.payment_orders') AS d`);
    expect(exists.rows[0].p).not.toBeNull();
    expect(exists.rows[0].d).not.toBeNull();
    expect(Number((await k.withSchema('payrecon_demo').table('payment_orders').count<{ n: string }[]>('* as n'))[0].n)).toBe(120);
  });

  it('raw SQL in src/ and jobs/ interpolates only constants and quoted identifiers, never values', () => {
    // Reviewed interpolations, none carrying input: column lists and cursor names (constants), a page size
    // (a number), quoted identifiers, an order table from a fixed map by direction (`table`), a column and
    // its type chosen by direction (`extra`, `extraType`), a literal column (`EPOCH_MS('taken_at')`), and
    // 'ASC' | 'DESC' (`order`), a report cursor's name and its query's text (? placeholders, values bound),
    // both from the fixed REPORT_QUERIES map (`cursor`, `query.text`), and a batch's `unnest(?::type[], …) AS v(…)` from unnestRows, whose names and types
    // are the caller's constant column lists and whose values are bindings (`v.sql`); prune's fixed
    // per-table specs (`params`, `eligible`, `head`, `last`, `time`: constant text from its SPECS map) and a
    // snapshot query's constant `where` from its two call sites; the case queue's `w.sql` (caseWhere: text
    // with ? placeholders, values bound), its keyset `k.expr` and `dir` (a fixed map by sort, ASC | DESC), an
    // order lookup's `one(direction, table)` over constant names, and late postings' `u.sql` (unnestRows). A new interpolation fails here until someone
    // reviews it and lists it.
    const allowed =
      /^(COLUMNS|CURSOR|ITEMS_SQL|pageSize|table|extra|extraType|order|cursor|query\.text|v\.sql|u\.sql|w\.sql|k\.expr|dir|one\('\w+', '\w+'\)|params|eligible|head|last|time|where|EPOCH_MS\('\w+'\)|quoteIdent\([\w.]+\)|[A-Z_]+)$/;
    const offenders: string[] = [];
    for (const dir of ['src', 'jobs']) {
      for (const file of walk(path.join(ROOT, dir)).filter((f) => f.endsWith('.ts') && !f.includes(`${path.sep}sandbox${path.sep}`))) {
        const text = fs.readFileSync(file, 'utf8');
        for (const m of text.matchAll(/\b(raw|whereRaw|orWhereRaw|havingRaw|orderByRaw|joinRaw|query)\(\s*`([^`]*)`/g)) {
          for (const expr of m[2].matchAll(/\$\{([^}]*)\}/g)) {
            if (!allowed.test(expr[1].trim())) offenders.push(`${path.relative(ROOT, file)}: \${${expr[1]}}`);
          }
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe('scrub covers every form a secret comes back in', () => {
  const secret = SLASHY_SECRET;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const cases: Array<[string, string]> = [
    ['as is', `key ${secret} refused`],
    ['JSON-escaped with \\/', JSON.stringify({ message: `key ${secret}` }).replaceAll('/', '\\/')],
    ['JSON-escaped without \\/', JSON.stringify({ message: `key ${secret}` })],
    ['URL-encoded (upper-case hex)', `?key=${encodeURIComponent(secret)}&x=1`],
    ['URL-encoded (lower-case hex)', `?key=${encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())}&x=1`],
    ['form-encoded', `key=${new URLSearchParams({ k: secret }).toString().slice(2)}`],
    ['base64 alone', `Authorization: Basic ${b64(secret)}`],
    ['base64 inside basic auth (offset 1)', `Authorization: Basic ${b64(`u:${secret}`)}`],
    ['base64 inside basic auth (offset 2)', `Authorization: Basic ${b64(`us:${secret}`)}`],
    ['base64 inside basic auth (offset 0)', `Authorization: Basic ${b64(`usr:${secret}`)}`],
    ['base64url', `token=${Buffer.from(`u:${secret}`).toString('base64url')}`],
  ];
  const config = loadConfig({ PROVIDER_SECRET: secret, DATABASE_URL: `postgres://u:${encodeURIComponent('p@ss/w0rd')}@db/x` });

  it.each(cases)('%s', (_name, text) => {
    const out = scrub(text, secretValues(config));
    expect(out).toContain(REDACTED);
    for (const form of [secret, secret.slice(0, 8), b64(secret).slice(4, 20), encodeURIComponent(secret).slice(0, 12)]) {
      expect(out).not.toContain(form);
    }
  });

  it('the database password in its decoded and encoded forms', () => {
    const out = scrub(`password p@ss/w0rd or p%40ss%2Fw0rd`, secretValues(config));
    expect(out).toBe(`password ${REDACTED} or ${REDACTED}`);
  });

  it('leaves text without a secret alone', () => {
    const text = 'signature check failed for key k3y (no secret here), base64 aGVsbG8=';
    expect(scrub(text, secretValues(config))).toBe(text);
  });
});
