/**
 * A year of history (issue 30): does a day cost the same after a year as on the first day?
 *
 *   npm run build && npm run bench:history -- [--days D=365] [--orders-per-day N=10000] [--reps R=5] [--cli dist|tsx] [--prune]
 *
 * Two scratch databases it creates on BENCH_DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432; the URL's
 * database is only where CREATE DATABASE runs, never used or dropped): payrecon_bench_history_<random>, seeded with D days of
 * history by bulk SQL (bench/lib/seed-history.ts), and <that name>_empty.
 * Both get the measured day: N of the sandbox's synthetic orders, dated yesterday. Then each daily
 * operation runs R times on each database as its own payrecon process (the compiled build by default)
 * and its median wall time is compared: a table (operation, empty, full, ratio), the database size per
 * million orders, and last `history: max ratio R`. Both databases are dropped at the end (--keep keeps them and prints
 * their name; --reuse NAME runs on a kept pair, which it never drops: it did not create them).
 * The console's pages (queue, ref search, case page) are timed in-process (bench/lib/console-timing.ts).
 * With --prune, last: `payrecon prune` with RETENTION_DAYS=--prune-days on the full database, and its size
 * per million orders before and after (the pruned tables compacted by VACUUM FULL, as a steady state reuses the space).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { loadSyntheticOrders } from './lib/load-synthetic.ts';
import { CHECK_AT_ONCE } from './lib/check-at-once.ts';
import { cliEntry } from './lib/cli-entry.ts';
import { seedHistory } from './lib/seed-history.ts';
import { timeConsolePages, type ConsolePage } from './lib/console-timing.ts';

const { values } = parseArgs({
  options: {
    days: { type: 'string', default: '365' },
    'orders-per-day': { type: 'string', default: '10000' },
    reps: { type: 'string', default: '5' },
    seed: { type: 'string', default: '30' },
    cli: { type: 'string', default: 'dist' },
    keep: { type: 'boolean', default: false },
    // Reuse the pair a `--keep` run left and named (same --days/--orders-per-day): no seed, never dropped.
    reuse: { type: 'string' },
    // The baseline holds the measured day plus this much history: what the day legitimately reads (RECON_LOOKBACK_DAYS + 1).
    'baseline-days': { type: 'string', default: '31' },
    // Time only the operations whose name contains one of these comma-separated texts (iterating on one query).
    only: { type: 'string', default: '' },
    prune: { type: 'boolean', default: false },
    'prune-days': { type: 'string', default: '60' },
  },
});
const whole = (flag: string, v: string, min: number) => {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${flag}: expected a whole number >= ${min} (got ${v})`);
  return Number(v);
};
const DAYS = whole('--days', values.days!, 1);
const N = whole('--orders-per-day', values['orders-per-day']!, 10);
const REPS = whole('--reps', values.reps!, 5);
const SEED = whole('--seed', values.seed!, 0);
const BASELINE_DAYS = whole('--baseline-days', values['baseline-days']!, 0);
const REUSE = values.reuse !== undefined;
if (REUSE && !/^payrecon_bench_history_[0-9a-f]{8}$/.test(values.reuse!))
  throw new Error(`--reuse: expected the name a --keep run printed, payrecon_bench_history_<8 hex digits> (got "${values.reuse}")`);
const PRUNE_DAYS = whole('--prune-days', values['prune-days']!, 40);
if (BASELINE_DAYS >= DAYS) throw new Error(`--baseline-days: expected fewer than --days (${DAYS}); got ${BASELINE_DAYS}`);
const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = cliEntry(ROOT, values.cli);
const MERCHANT = { PROVIDER_MERCHANT_ID: 'bench-merchant', PROVIDER_SECRET: 'bench-secret-0123456789' };
const log = (m: string) =>
  process.stderr.write(`[history ${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(2)}] ${m}\n`);

// The server: its URL's database is where CREATE and DROP DATABASE run (the bench's own databases cannot), nothing else.
const adminUrl = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const fullName = values.reuse ?? `payrecon_bench_history_${randomBytes(4).toString('hex')}`;
const fullUrl = new URL(adminUrl);
fullUrl.pathname = `/${fullName}`;
const emptyUrl = new URL(fullUrl);
emptyUrl.pathname = `/${fullName}_empty`;
/** The databases this run created: the only ones it drops. */
const created: string[] = [];

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const now = new Date();
const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 86_400_000);
const measuredDate = dayStart.toISOString().slice(0, 10);
const midDate = new Date(dayStart.getTime() - Math.ceil(DAYS / 2) * 86_400_000).toISOString().slice(0, 10);
/** payrecon's tables live in DATABASE_SCHEMA (its default here). */
const SCHEMA = loadConfig({ LOG_LEVEL: 'silent' }).DATABASE_SCHEMA;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-history-'));

const env = (url: URL, baseUrl: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  ...MERCHANT,
  ...CHECK_AT_ONCE,
  DATABASE_URL: url.toString(),
  PROVIDER_BASE_URL: baseUrl,
  LOG_LEVEL: 'warn',
  REPORT_DIR: path.join(tmp, `reports-${url.pathname.slice(1)}`),
  REPORT_TIMEZONE: 'UTC',
  RECON_CONCURRENCY: '32',
  SNAPSHOT_OPEN_CHECK: 'off',
});

/** Runs `payrecon args` to its end; its wall time in ms. A failure stops the bench. */
async function timed(args: string[], childEnv: NodeJS.ProcessEnv): Promise<number> {
  return (await payrecon(args, childEnv)).ms;
}

async function payrecon(args: string[], childEnv: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string }> {
  const start = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (err += d));
  const [code] = (await once(child, 'close')) as [number | null];
  const ms = performance.now() - start;
  if (code !== 0) throw new Error(`payrecon ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`);
  return { ms, stdout };
}

/** The database's size and its orders. */
async function sizeOf(url: URL): Promise<{ bytes: number; orders: number }> {
  const c = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${SCHEMA}` });
  await c.connect();
  try {
    const r = await c.query(
      `SELECT pg_database_size(current_database())::text AS bytes,
              ((SELECT count(*) FROM payment_orders) + (SELECT count(*) FROM payout_orders))::text AS orders`,
    );
    return { bytes: Number(r.rows[0].bytes), orders: Number(r.rows[0].orders) };
  } finally {
    await c.end();
  }
}

const perMillion = (s: { bytes: number; orders: number }) => (s.bytes / 1e6 / (s.orders / 1e6)).toFixed(0);

/** The console's pages, each found on the database it runs on (the measured day's ref; its newest case). */
const CONSOLE_PAGES: ConsolePage[] = [
  { name: 'console: queue first page', url: async () => '/cases' },
  {
    name: 'console: ref search',
    url: async (q) =>
      `/search?ref=${encodeURIComponent(
        await q(
          `SELECT left(merchant_ref, greatest(length(merchant_ref) - 2, 6)) AS v FROM payment_orders WHERE merchant_ref NOT LIKE 'h%' ORDER BY id LIMIT 1`,
        ),
      )}`,
  },
  { name: 'console: case page', url: async (q) => `/cases/${await q('SELECT max(id)::text AS v FROM cases')}` },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The measured day on one database: the sandbox's N synthetic orders, moved to yesterday (same time of day). */
async function loadMeasuredDay(db: Db): Promise<void> {
  await loadSyntheticOrders(db, { seed: SEED, count: N, now: now.getTime() });
  for (const t of ['payment_orders', 'payout_orders']) {
    await db.knex.raw(
      `UPDATE ${t} SET created_at = ?::timestamptz + (extract(epoch FROM created_at)::bigint % 86400) * interval '1 second', updated_at = now()
        WHERE merchant_ref NOT LIKE 'h%'`,
      [dayStart.toISOString()],
    );
  }
  await db.knex.raw('ANALYZE');
}

/** A due sweep's worth: 15 minutes of the day's orders (N/96) due again now, as if still pending. */
async function makeDue(url: URL): Promise<void> {
  const c = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${SCHEMA}` });
  await c.connect();
  try {
    for (const t of ['payment_orders', 'payout_orders']) {
      await c.query(
        `UPDATE ${t} SET status = 'Initiated', status_category = 'pending', finalized_at = NULL, next_check_at = now() - interval '1 second'
          WHERE id IN (SELECT id FROM ${t} WHERE merchant_ref NOT LIKE 'h%' ORDER BY created_at DESC LIMIT $1)`,
        [Math.ceil(N / 96 / 2)],
      );
    }
  } finally {
    await c.end();
  }
}

let sandbox: ReturnType<typeof spawn> | undefined;
try {
  for (const name of REUSE ? [] : [fullName, `${fullName}_empty`]) {
    await admin(`CREATE DATABASE ${name}`);
    created.push(name);
  }
  sandbox = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--seed', String(SEED)], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...MERCHANT, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: sandbox.stdout! }), 'line')) as [string];
  const baseUrl = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!baseUrl) throw new Error(`sandbox: unexpected first line ${JSON.stringify(line)}`);
  await new SandboxControl(baseUrl).bulkSeed({ seed: SEED, count: N, merchantId: MERCHANT.PROVIDER_MERCHANT_ID });

  const sizes: Record<string, { bytes: number; orders: number }> = {};
  for (const url of [fullUrl, emptyUrl]) {
    const db = await openDatabase(loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' }), { poolMax: 2 });
    try {
      await migrate(db);
      if (REUSE) {
        await db.knex.raw('ANALYZE');
        continue;
      }
      const days = url === fullUrl ? DAYS : BASELINE_DAYS;
      const t0 = performance.now();
      if (days > 0) await seedHistory(db, { days, perDay: N, dayStart, now, log });
      log(`${url.pathname.slice(1)}: ${days} days x ${N} orders seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      await loadMeasuredDay(db);
    } finally {
      await db.close();
    }
  }

  const operations: Array<{ name: string; before?: (url: URL) => Promise<void>; args: (url: URL) => string[] }> = [
    { name: `daily: reconcile --date ${measuredDate}`, args: () => ['reconcile', '--date', measuredDate] },
    { name: `daily: report --date ${measuredDate}`, args: () => ['report', '--date', measuredDate, '--force'] },
    { name: `due sweep (${Math.ceil(N / 96 / 2) * 2} orders)`, before: makeDue, args: () => ['reconcile'] },
    // The baseline has no middle of history: its own measured day (same size, same lookback) stands in for it.
    { name: 'report --date <middle of history>', args: (u) => ['report', '--date', u === fullUrl ? midDate : measuredDate, '--force'] },
    { name: 'status', args: () => ['status', '--json'] },
    { name: 'snapshot (with roll-forward)', args: () => ['snapshot', '--json'] },
  ];
  const rows: Array<[string, number, number]> = [];
  for (const op of operations.filter((o) => values.only!.split(',').some((part) => o.name.includes(part)))) {
    const medians: number[] = [];
    for (const url of [emptyUrl, fullUrl]) {
      const times: number[] = [];
      for (let i = 0; i < REPS; i++) {
        await op.before?.(url);
        times.push(await timed(op.args(url), env(url, baseUrl)));
      }
      medians.push(median(times));
    }
    rows.push([op.name, medians[0], medians[1]]);
    log(`${op.name}: empty ${medians[0].toFixed(0)} ms, full ${medians[1].toFixed(0)} ms`);
  }
  const pages = CONSOLE_PAGES.filter((p) => values.only!.split(',').some((part) => p.name.includes(part)));
  if (pages.length > 0) {
    // A first pass warms the process (JIT, templates): discarded, so the first database timed is not the slower one.
    await timeConsolePages(env(emptyUrl, baseUrl), pages, 1);
    const [empty, full] = [
      await timeConsolePages(env(emptyUrl, baseUrl), pages, REPS),
      await timeConsolePages(env(fullUrl, baseUrl), pages, REPS),
    ];
    pages.forEach((p, i) => {
      rows.push([p.name, empty[i], full[i]]);
      log(`${p.name}: empty ${empty[i].toFixed(1)} ms, full ${full[i].toFixed(1)} ms`);
    });
  }

  for (const url of [fullUrl, emptyUrl]) sizes[url.pathname.slice(1)] = await sizeOf(url);

  const pruneLines: string[] = [];
  if (values.prune) {
    const before = await sizeOf(fullUrl);
    log(`prune: RETENTION_DAYS=${PRUNE_DAYS} on ${fullName}`);
    const pruned = await payrecon(['prune', '--json'], { ...env(fullUrl, baseUrl), RETENTION_DAYS: String(PRUNE_DAYS) });
    const tables = (JSON.parse(pruned.stdout) as { tables: Record<string, number> }).tables;
    const c = new pg.Client({ connectionString: fullUrl.toString(), options: `-c search_path=${SCHEMA}` });
    await c.connect();
    const t0 = performance.now();
    try {
      for (const t of ['recon_items', 'job_runs', 'webhook_events', 'alerts', 'report_version_orders', 'recon_open'])
        await c.query(`VACUUM FULL ANALYZE ${t}`);
    } finally {
      await c.end();
    }
    const after = await sizeOf(fullUrl);
    const removed = Object.entries(tables)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ');
    pruneLines.push(
      `prune (RETENTION_DAYS=${PRUNE_DAYS}) of ${fullName}: ${(pruned.ms / 1000).toFixed(0)} s, removed ${removed || 'nothing'}; VACUUM FULL ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      `${fullName} before prune: ${(before.bytes / 1e6).toFixed(0)} MB, ${perMillion(before)} MB per million orders; after: ${(after.bytes / 1e6).toFixed(0)} MB, ${perMillion(after)} MB per million orders`,
    );
  }

  const out: string[] = [];
  out.push(
    `history: ${DAYS} days x ${N} orders/day (baseline: ${BASELINE_DAYS} days), ${REPS} repetitions (median), ${os.cpus().length} cores, node ${process.version}, ${now.toISOString()}`,
  );
  out.push('| operation | empty (ms) | full (ms) | ratio |', '| --- | ---: | ---: | ---: |');
  // Console pages take milliseconds: one decimal there.
  const ms = (x: number) => x.toFixed(x < 100 ? 1 : 0);
  for (const [name, e, f] of rows) out.push(`| ${name} | ${ms(e)} | ${ms(f)} | ${(f / e).toFixed(2)} |`);
  for (const [name, s] of Object.entries(sizes)) {
    out.push(`${name}: ${(s.bytes / 1e6).toFixed(0)} MB, ${s.orders} orders, ${perMillion(s)} MB per million orders`);
  }
  out.push(...pruneLines);
  if (rows.length > 0) out.push(`history: max ratio ${Math.max(...rows.map(([, e, f]) => f / e)).toFixed(2)}`);
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  sandbox?.kill('SIGTERM');
  if (values.keep && created.length) log(`kept ${created.join(' and ')}: --reuse ${fullName} runs on them`);
  else for (const name of created) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}
