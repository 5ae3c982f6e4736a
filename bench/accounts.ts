/**
 * Many accounts, many workers (issue 41): N accounts in one sandbox, each its own MerchantID, secret and
 * provider rate limit, M orders each, reconciled in SCHEDULE_MODE=queue by W `payrecon worker` processes:
 *
 *   BENCH_DATABASE_URL=postgres://…/postgres npm run bench:accounts -- [--accounts 4] [--orders-per-account 500]
 *     [--rate 25] [--workers 1,2] [--worker-concurrency 4] [--batch-size 100] [--recon-concurrency 8] [--cli tsx|dist]
 *     [--cpu-prof-dir DIR]
 *
 * Per worker count, on a fresh scratch database (`payrecon_bench_accounts_*`, made and dropped here): the
 * workers start and beat, one scheduler plans every account's sweep, and the clock runs from then until
 * the last account's run completes. Prints orders checked per second, its ratio to the summed provider
 * limits (N × rate), the workers' CPU per order (utime + stime of the worker processes over the run), the
 * Postgres backends' CPU per order (/proc of the backends on the scratch database, sampled), and fairness:
 * the slowest account's finish time over the fastest's (both from the plan). The machine is shared: the
 * load is printed and recorded with every figure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { rowsOf } from '../src/db/row.ts';
import { migrate } from '../src/db/migrate.ts';
import { silentLogger } from '../src/log/logger.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { queueRunners } from '../src/services/queue-runners.ts';
import { installQueue } from '../src/worker/install.ts';
import { cliEntry } from './lib/cli-entry.ts';
import { loadSyntheticOrders } from './lib/load-synthetic.ts';
import { batchTimeline } from './lib/batch-timeline.ts';
import { benchMachine, loadAverages, recordResult } from './lib/record.ts';
import { createScratchDatabase } from './lib/scratch-database.ts';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '4' },
    'orders-per-account': { type: 'string', default: '500' },
    rate: { type: 'string', default: '25' },
    workers: { type: 'string', default: '1,2' },
    'worker-concurrency': { type: 'string', default: '4' },
    'batch-size': { type: 'string', default: '100' },
    'recon-concurrency': { type: 'string', default: '8' },
    cli: { type: 'string', default: 'tsx' },
    // Each worker writes a V8 CPU profile there when it stops (node --cpu-prof): where its CPU per order goes.
    'cpu-prof-dir': { type: 'string' },
  },
});
const whole = (name: string, v: string | undefined, min = 1): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name}: expected a whole number ≥ ${min} (got ${v})`);
  return n;
};
const N = whole('accounts', values.accounts);
const M = whole('orders-per-account', values['orders-per-account']);
const RATE = whole('rate', values.rate);
const WORKER_COUNTS = (values.workers ?? '').split(',').map((w) => whole('workers', w.trim()));
const WORKER_CONCURRENCY = whole('worker-concurrency', values['worker-concurrency']);
const BATCH = whole('batch-size', values['batch-size']);
const RECON_C = whole('recon-concurrency', values['recon-concurrency']);
const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = cliEntry(ROOT, values.cli);
const CLK_TCK = 100;
const server = process.env.BENCH_DATABASE_URL;
if (!server) throw new Error('BENCH_DATABASE_URL: a Postgres server is needed (the queue lives in it)');

const log = (msg: string) =>
  process.stderr.write(`[accounts ${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(2)}] ${msg}\n`);

const accounts = Array.from({ length: N }, (_, i) => ({
  id: `acct-${i + 1}`,
  merchantId: `bench-m-${i + 1}`,
  secret: `bench-secret-${i + 1}-0123456789`,
  secretEnv: `ACCT_${i + 1}_SECRET`,
  seed: 4100 + i,
}));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-bench-accounts-'));
const accountsFile = path.join(tmp, 'accounts.json');
fs.writeFileSync(
  accountsFile,
  JSON.stringify({
    accounts: accounts.map((a) => ({ id: a.id, merchantId: a.merchantId, secret: { env: a.secretEnv }, rateLimitPerSec: RATE })),
  }),
);

/** utime + stime of a live process, in seconds (0 once it is gone). */
function procCpuSeconds(pid: number): number {
  const { user, system } = procCpuSplit(pid);
  return user + system;
}

/** utime and stime (the kernel's share: socket sends and receives) of a live process, in seconds. */
function procCpuSplit(pid: number): { user: number; system: number } {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) / CLK_TCK, system: Number(fields[12]) / CLK_TCK };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** CPU seconds of every backend on `dbName`, by pid (the workers' pools live through the run). */
async function pgBackendCpu(dbName: string): Promise<Map<number, number>> {
  const c = new pg.Client({ connectionString: server });
  const out = new Map<number, number>();
  try {
    await c.connect();
    const { rows } = await c.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
    for (const { pid } of rows as Array<{ pid: number }>) {
      const s = procCpuSeconds(pid);
      if (s > 0) out.set(pid, s);
    }
  } catch {
    // A sample lost to a busy server is not worth failing the bench for.
  } finally {
    await c.end().catch(() => undefined);
  }
  return out;
}

const sandbox = spawn(
  process.execPath,
  [CLI, 'sandbox', '--port', '0', ...accounts.flatMap((a) => ['--merchant', `${a.merchantId}:${a.secret}:${RATE}`])],
  { cwd: tmp, stdio: ['ignore', 'pipe', 'inherit'], env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn' } },
);
const results: Array<Record<string, unknown>> = [];
try {
  const [line] = (await once(createInterface({ input: sandbox.stdout! }), 'line')) as [string];
  const baseUrl = /listening on (http:\/\/\S+)/.exec(line)![1];
  const control = new SandboxControl(baseUrl);
  for (const a of accounts) await control.bulkSeed({ seed: a.seed, count: M, merchantId: a.merchantId });
  log(`sandbox ${baseUrl}: ${N} merchants at ${RATE}/s each, ${M} orders each`);

  for (const W of WORKER_COUNTS) results.push(await runOnce(baseUrl, control, W));

  const loadNow = loadAverages();
  recordResult('accounts', {
    command: `BENCH_DATABASE_URL=<postgres> npm run bench:accounts -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: benchMachine('Postgres'),
    load: { end: loadNow },
    figures: {
      accounts: N,
      orders_per_account: M,
      rate_per_account_per_s: RATE,
      summed_limits_per_s: N * RATE,
      worker_concurrency: WORKER_CONCURRENCY,
      batch_size: BATCH,
      recon_concurrency: RECON_C,
      cli: values.cli,
      runs: results,
    },
  });
  const header = ['workers', 'orders/s', 'of summed limits', 'worker CPU/order', 'Postgres CPU/order', 'fairness', 'wall', 'load (1/5/15)'];
  const rows = results.map((r) =>
    [
      r.workers,
      r.orders_per_s,
      r.ratio_to_summed_limits,
      `${r.worker_cpu_us_per_order} µs`,
      `${r.postgres_cpu_us_per_order} µs`,
      r.fairness,
      `${r.seconds} s`,
      (r.load_end as number[]).join(' '),
    ].join(' | '),
  );
  process.stdout.write(
    `\n${N} accounts × ${M} orders, ${RATE}/s each (summed ${N * RATE}/s):\n\n| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n${rows.map((r) => `| ${r} |`).join('\n')}\n`,
  );
} finally {
  sandbox.kill('SIGTERM');
  await once(sandbox, 'exit').catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function runOnce(baseUrl: string, control: SandboxControl, W: number): Promise<Record<string, unknown>> {
  const scratch = await createScratchDatabase(server!, 'payrecon_bench_accounts');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: scratch.url,
    PROVIDER_BASE_URL: baseUrl,
    PROVIDER_MERCHANT_ID: accounts[0].merchantId,
    PROVIDER_SECRET: accounts[0].secret,
    ACCOUNTS_FILE: accountsFile,
    ...Object.fromEntries(accounts.map((a) => [a.secretEnv, a.secret])),
    SCHEDULE_MODE: 'queue',
    RECON_BATCH_SIZE: String(BATCH),
    RECON_CONCURRENCY: String(RECON_C),
    WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    // Info: each batch's 'reconcile batch finished' line carries its stage timings (read, fetch, write).
    LOG_LEVEL: 'info',
  };
  const stages = batchStages();
  const workers: Array<{ child: ChildProcess; done: Promise<{ code: number | null; stderr: string }> }> = [];
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const db = await openDatabase(config, { poolMax: 2 });
  try {
    await migrate(db);
    // Each account's orders loaded, then marked as that account's (they arrive as the default account's).
    for (const a of accounts) {
      await loadSyntheticOrders(db, { seed: a.seed, count: M, now: Date.now() });
      for (const t of ['payment_orders', 'payout_orders']) await db.knex(t).where({ account_id: 'default' }).update({ account_id: a.id });
    }
    await installQueue(db, scratch.url, silentLogger);
    for (let i = 0; i < W; i++) {
      const prof = values['cpu-prof-dir'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values['cpu-prof-dir'])] : [];
      const child = spawn(process.execPath, [...prof, CLI, 'worker'], { cwd: tmp, env, stdio: ['ignore', 'ignore', 'pipe'] });
      createInterface({ input: child.stderr! }).on('line', (l) => stages.add(i, l));
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
      workers.push({ child, done: once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr })) });
    }
    // Started when every worker beats: the figures are the queue's, not the processes' start-up.
    for (;;) {
      const [{ n }] = await db.knex('worker_heartbeats').count<{ n: string }[]>('* as n');
      if (Number(n) >= W) break;
      const dead = workers.find((w) => w.child.exitCode !== null);
      if (dead) throw new Error(`a worker exited ${dead.child.exitCode} before beating: ${(await dead.done).stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const loadStart = loadAverages();
    const workerCpu0 = workers.map((w) => procCpuSeconds(w.child.pid!));
    const workerSystem0 = workers.map((w) => procCpuSplit(w.child.pid!).system);
    const pgStart = await pgBackendCpu(scratch.name);
    const stmts0 = await tableAccesses(db.knex);
    const pgLatest = new Map(pgStart);
    const throttled0 = (await control.stats()).rate.throttled;
    const t0 = Date.now();
    const plan = await queueRunners({ config, db }).reconcile({
      scheduledFor: new Date(t0),
      reason: 'scheduled',
      signal: new AbortController().signal,
      logger: silentLogger,
    });
    const runIds = (plan.detail?.runIds as string[] | undefined) ?? [];
    if (runIds.length !== N) throw new Error(`planned ${runIds.length} runs for ${N} accounts: ${JSON.stringify(plan)}`);
    log(`${W} worker(s): ${plan.counts?.jobs} batch jobs planned in ${N} runs`);
    for (;;) {
      for (const [pid, s] of await pgBackendCpu(scratch.name)) pgLatest.set(pid, s);
      const done = await db.knex('job_runs').whereIn('id', runIds).whereNotNull('finished_at').count<{ n: string }[]>('* as n');
      if (Number(done[0].n) === N) break;
      const dead = workers.find((w) => w.child.exitCode !== null);
      if (dead) throw new Error(`a worker exited ${dead.child.exitCode} during the run: ${(await dead.done).stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const workerCpu = workers.reduce((s, w, i) => s + procCpuSeconds(w.child.pid!) - workerCpu0[i], 0);
    const workerSystem = workers.reduce((s, w, i) => s + procCpuSplit(w.child.pid!).system - workerSystem0[i], 0);
    for (const [pid, s] of await pgBackendCpu(scratch.name)) pgLatest.set(pid, s);
    const pgCpu = [...pgLatest].reduce((s, [pid, cpu]) => s + cpu - (pgStart.get(pid) ?? 0), 0);
    const loadEnd = loadAverages();
    // The statistics collector publishes a backend's counts within a second or so.
    await new Promise((r) => setTimeout(r, 1500));
    const stmts1 = await tableAccesses(db.knex);
    const runs = await db.knex('job_runs').whereIn('id', runIds).select('account_id', 'status', 'selected', 'checked', 'finished_at');
    const finish = runs.map((r) => (new Date(r.finished_at as string).getTime() - t0) / 1000);
    const seconds = Math.max(...finish);
    const orders = runs.reduce((n, r) => n + Number(r.checked), 0);
    // A few synthetic orders are not due (selected < M): complete means every selected order checked.
    const incomplete = runs.filter((r) => r.status !== 'completed' || Number(r.checked) !== Number(r.selected));
    const perS = orders / seconds;
    const result = {
      workers: W,
      orders,
      all_checked: incomplete.length === 0,
      seconds: Number(seconds.toFixed(1)),
      orders_per_s: Number(perS.toFixed(1)),
      ratio_to_summed_limits: Number((perS / (N * RATE)).toFixed(3)),
      worker_cpu_us_per_order: Math.round((workerCpu / orders) * 1e6),
      worker_system_cpu_us_per_order: Math.round((workerSystem / orders) * 1e6),
      postgres_cpu_us_per_order: Math.round((pgCpu / orders) * 1e6),
      fairness: Number((seconds / Math.min(...finish)).toFixed(3)),
      fastest_account_s: Number(Math.min(...finish).toFixed(1)),
      slowest_account_s: Number(seconds.toFixed(1)),
      load_start: loadStart,
      load_end: loadEnd,
      // Where the time went: batches in flight, each account's busy share and rate while busy, the gaps between its batches.
      timeline: await batchTimeline(db.knex, runIds, t0, RATE),
      batch_stage_s: stages.totals(),
      provider_429s: (await control.stats()).rate.throttled - throttled0,
      db_per_order: perOrder(stmts0, stmts1, orders),
    };
    if (incomplete.length) log(`incomplete runs: ${JSON.stringify(incomplete)}`);
    log(JSON.stringify(result));
    return result;
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.done));
    await db.close();
    await scratch.drop().catch((err: Error) => log(`could not drop ${scratch.name}: ${err.message}`));
  }
}

/** The workers' batch lines summed: seconds spent reading, fetching (waiting for the budget included) and writing. */
function batchStages() {
  const sum = { batches: 0, read: 0, fetch: 0, write: 0 };
  // Cumulative per process and account: the latest line of each is its count.
  const expired = new Map<string, number>();
  const pastOnArrival = new Map<string, number>();
  return {
    add(worker: number, line: string) {
      if (!line.includes('reconcile batch finished')) return;
      try {
        const parsed = JSON.parse(line) as {
          ms?: { read: number; fetch: number; write: number };
          account?: string;
          budgetSlotsExpired?: number;
          budgetSlotsPastOnArrival?: number;
        };
        const ms = parsed.ms;
        if (!ms) return;
        expired.set(`${worker}:${parsed.account}`, parsed.budgetSlotsExpired ?? 0);
        pastOnArrival.set(`${worker}:${parsed.account}`, parsed.budgetSlotsPastOnArrival ?? 0);
        sum.batches++;
        sum.read += ms.read / 1000;
        sum.fetch += ms.fetch / 1000;
        sum.write += ms.write / 1000;
      } catch {
        // Not a log line of ours.
      }
    },
    totals: () => ({
      batches: sum.batches,
      read: Number(sum.read.toFixed(1)),
      fetch: Number(sum.fetch.toFixed(1)),
      write: Number(sum.write.toFixed(1)),
      budget_slots_expired: [...expired.values()].reduce((a, b) => a + b, 0),
      budget_slots_past_on_arrival: [...pastOnArrival.values()].reduce((a, b) => a + b, 0),
    }),
  };
}

type Accesses = Map<string, number>;

/**
 * What the database did, from its statistics views: transactions committed on the scratch database, and per
 * table, scans (sequential + index: about one per statement touching it) and rows inserted, updated or deleted.
 */
async function tableAccesses(knex: import('knex').Knex): Promise<Accesses> {
  const out: Accesses = new Map();
  const [{ xacts }] = rowsOf(
    await knex.raw('SELECT xact_commit + xact_rollback AS xacts FROM pg_stat_database WHERE datname = current_database()'),
  );
  out.set('xacts', Number(xacts));
  const tables = rowsOf(
    await knex.raw(
      `SELECT schemaname || '.' || relname AS t, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans,
              n_tup_ins + n_tup_upd + n_tup_del AS writes
         FROM pg_stat_all_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`,
    ),
  );
  for (const r of tables) {
    out.set(`scans ${r.t as string}`, Number(r.scans));
    out.set(`writes ${r.t as string}`, Number(r.writes));
  }
  return out;
}

/** Per order checked, the counts that moved (the largest first), to two decimals. */
function perOrder(before: Accesses, after: Accesses, orders: number): Record<string, number> {
  const moved = [...after]
    .map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / orders] as const)
    .filter(([, v]) => v >= 0.005)
    .sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(moved.map(([k, v]) => [k, Number(v.toFixed(2))]));
}
