/**
 * End-to-end benchmark of `payrecon reconcile` and `payrecon report` against the sandbox (issue 7).
 *
 *   npm run bench -- [--orders N=100000] [--latency-ms L=0] [--concurrency C=64] [--skip-baseline] [--skip-report] [--cli dist|tsx]
 *
 * --cli: the sandbox, job and report processes run the compiled build (`dist`, the default: what production and
 * the Docker image run; `npm run build` first) or the TypeScript sources through tsx (`tsx`, as bin/payrecon.mjs
 * does from a checkout, which adds tsx's compile at start-up and its loader thread).
 *
 * BENCH_DATABASE_URL: a Postgres server; a fresh database payrecon_bench_<random> is created there
 * and dropped at the end. Unset: PGlite in a temporary directory.
 *
 * Steps: sandbox process, bulk-seed N orders there and load the same N into the merchant database
 * (untimed); the HTTP ceiling (bench/http-ceiling.ts, a separate process of fetches only); the job
 * (`payrecon reconcile --json`, a separate process) timed with its peak RSS and every result
 * verified; `payrecon report` for today, timed with its peak RSS; a naive one-order-at-a-time
 * baseline on a sample. Prints a markdown table, appends the run as a JSON line to bench/results/run.jsonl, and
 * prints last the ratio job CPU per order / fetch-only client CPU per request (issue 42), which `npm run bench:check`
 * compares with the best recorded on the same machine.
 */
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { loadSyntheticOrders } from './lib/load-synthetic.ts';
import { CHECK_AT_ONCE } from './lib/check-at-once.ts';
import { cliEntry } from './lib/cli-entry.ts';
import { benchMachine, currentCommit, recordResult } from './lib/record.ts';
import { costOf, resetStatements, snapshot, type PgCost } from './lib/pg-stats.ts';
import { cpuRatio } from './lib/cpu-ratio.ts';
import { sampleWarmSplit, steadyCpuUs } from './lib/warm-split.ts';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '100000' },
    'latency-ms': { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '64' },
    'skip-baseline': { type: 'boolean', default: false },
    'skip-report': { type: 'boolean', default: false },
    seed: { type: 'string', default: '7' },
    cli: { type: 'string', default: 'dist' },
  },
});
const N = wholeNumber('--orders', values.orders!, 1);
const L = wholeNumber('--latency-ms', values['latency-ms']!, 0);
const C = wholeNumber('--concurrency', values.concurrency!, 1);
const SEED = wholeNumber('--seed', values.seed!, 0);
const MERCHANT = { PROVIDER_MERCHANT_ID: 'bench-merchant', PROVIDER_SECRET: 'bench-secret-0123456789' };
const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = cliEntry(ROOT, values.cli);
const RSS_PRELOAD = path.join(ROOT, 'bench', 'rss-at-exit.mjs');
// Extra node flags for the measured children, e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
// Declared before the top-level code that uses it (a const further down would still be uninitialised).
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
// The code measured: a run lasts minutes, and HEAD may move meanwhile.
const COMMIT = currentCommit();

function wholeNumber(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min) throw new Error(`${flag}: expected a whole number >= ${min} (got ${value})`);
  return n;
}

const log = (msg: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(2)}] ${msg}\n`);
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

// ---------- database ----------
const suffix = randomBytes(4).toString('hex');
const server = process.env.BENCH_DATABASE_URL;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-bench-'));
let dbUrl: string | undefined;
let dbName: string | undefined;
if (server) {
  dbName = `payrecon_bench_${suffix}`;
  await adminQuery(`CREATE DATABASE ${dbName}`);
  const u = new URL(server);
  u.pathname = `/${dbName}`;
  dbUrl = u.toString();
}
const pgliteDir = path.join(tmp, 'pglite');
const reportDir = path.join(tmp, 'reports');
/** The environment every payrecon child gets: this database, this provider, nothing inherited that could point elsewhere. */
const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...MERCHANT,
    LOG_LEVEL: 'warn',
    REPORT_DIR: reportDir,
    REPORT_TIMEZONE: 'UTC',
    ...CHECK_AT_ONCE,
    ...extra,
  };
  if (dbUrl) env.DATABASE_URL = dbUrl;
  else env.PGLITE_DIR = pgliteDir;
  return env;
};
/** The warm-up split's own connection, named so it is not counted among the job's backends. */
const WARM_SPLIT_APP = 'bench-warm-split';
let warmClient: pg.Client | undefined;

const SCHEMA = loadConfig({ ...MERCHANT, LOG_LEVEL: 'silent' }).DATABASE_SCHEMA;
const dbConfig = () => loadConfig({ ...MERCHANT, LOG_LEVEL: 'silent', ...(dbUrl ? { DATABASE_URL: dbUrl } : { PGLITE_DIR: pgliteDir }) });

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

let sandbox: ReturnType<typeof spawn> | undefined;
try {
  // ---------- sandbox ----------
  sandbox = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--latency-ms', String(L), '--seed', String(SEED)], {
    cwd: tmp, // no .env of the working tree leaks in
    stdio: ['ignore', 'pipe', 'inherit'],
    env: childEnv({}),
  });
  // A sandbox that dies before its first line must fail the bench (and run the clean-up), not hang it.
  const line = await Promise.race([
    once(createInterface({ input: sandbox.stdout! }), 'line').then(([l]) => l as string),
    once(sandbox, 'exit').then(([code]) => {
      throw new Error(`sandbox exited ${code} before listening`);
    }),
  ]);
  const baseUrl = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!baseUrl) throw new Error(`sandbox: unexpected first line ${JSON.stringify(line)}`);
  await new SandboxControl(baseUrl).bulkSeed({ seed: SEED, count: N, merchantId: MERCHANT.PROVIDER_MERCHANT_ID });
  log(`sandbox ${baseUrl} latency ${L} ms, ${N} orders seeded (seed ${SEED})`);

  // ---------- merchant database (untimed) ----------
  let db = await openDatabase(dbConfig(), { poolMax: 2 });
  await migrate(db);
  const loadStart = performance.now();
  const now = Date.now();
  await loadSyntheticOrders(db, { seed: SEED, count: N, now });
  await db.knex.raw('ANALYZE');
  await db.close();
  log(`loaded ${N} orders into ${dbName ?? 'PGlite'} in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);

  // ---------- ceiling ----------
  // Measured right before and right after the job, averaged: on a shared machine the load drifts during a long run.
  const ceilingSeconds = 10;
  const measureCeiling = async (): Promise<{ requests: number; rps: number; errors: number; cpu_us_per_request: number }> => {
    const out = await runChild(
      'ceiling',
      [
        process.execPath,
        '--import',
        'tsx',
        path.join(ROOT, 'bench', 'http-ceiling.ts'),
        '--base-url',
        baseUrl,
        '--seed',
        String(SEED),
        '--orders',
        String(N),
        '--concurrency',
        String(C),
        '--seconds',
        String(ceilingSeconds),
      ],
      childEnv({}),
      ROOT,
    );
    if (out.code !== 0) throw new Error(`ceiling exited ${out.code}: ${out.stderr.slice(-2000)}`);
    const c = JSON.parse(out.stdout.trim().split('\n').pop()!) as {
      requests: number;
      rps: number;
      errors: number;
      cpu_us_per_request: number;
    };
    log(
      `ceiling ${c.rps} req/s (${c.requests} requests, ${c.errors} errors, client CPU ${c.cpu_us_per_request} µs/request), load ${loadavg()}`,
    );
    return c;
  };
  const ceilingBefore = await measureCeiling();

  // ---------- the job ----------
  const loadBeforeJob = loadavg();
  // WAL, buffers and statements of the job alone (server-wide counters: a server of the bench's own; issue 30).
  if (server) await resetStatements(server);
  const pgBefore = server && dbUrl ? await snapshot(server, dbUrl) : undefined;
  // Where the CPU goes per order: the job (its own resourceUsage), the sandbox and the job's Postgres
  // backends (/proc, sampled while they live: backends exit with the job).
  const sandboxCpuBefore = procCpuSeconds(sandbox.pid!);
  const pgCpu = new Map<number, number>();
  const pgSampler = dbName ? setInterval(() => void samplePgBackends(pgCpu), 500) : undefined;
  // The job's fixed costs apart from its steady state: its CPU once its run had checked a fifth of the orders
  // (a server's database only: PGlite serves one process).
  let jobPid = 0;
  const warm = dbUrl
    ? sampleWarmSplit({
        cpuSeconds: () => (jobPid ? procCpuSeconds(jobPid) : 0),
        checked: runChecked,
        from: Math.ceil(N / 5),
        everyMs: 100,
      })
    : undefined;
  const job = await runChild(
    'reconcile',
    [process.execPath, ...NODE_ARGS, '--import', RSS_PRELOAD, CLI, 'reconcile', '--json'],
    childEnv({ PROVIDER_BASE_URL: baseUrl, RECON_CONCURRENCY: String(C) }),
    tmp,
    (pid) => (jobPid = pid),
  );
  clearInterval(pgSampler);
  const warmSplit = warm?.stop() ?? null;
  await warmClient?.end().catch(() => undefined);
  const loadAfterJob = loadavg();
  const cpu = {
    job: job.cpuSeconds,
    sandbox: procCpuSeconds(sandbox.pid!) - sandboxCpuBefore,
    postgres: dbName ? [...pgCpu.values()].reduce((a, b) => a + b, 0) : NaN,
  };
  const ceilingAfter = await measureCeiling();
  // Taken before the checks below read the tables; the job's backends have long exited (and flushed their counters).
  const pgAfter = pgBefore && server && dbUrl ? await snapshot(server, dbUrl) : undefined;
  const ceiling = { rps: (ceilingBefore.rps + ceilingAfter.rps) / 2 };
  if (job.code !== 0) throw new Error(`reconcile exited ${job.code}: ${job.stderr.slice(-2000)}`);
  const outcome = JSON.parse(job.stdout) as {
    status: string;
    runs: Array<{ runId: string; status: string; checked: number; selected: number; counts: Record<string, number> }>;
  };
  const run = outcome.runs[outcome.runs.length - 1];
  const jobRate = N / job.seconds;
  log(
    `reconcile ${run.status}: ${run.checked}/${run.selected} in ${job.seconds.toFixed(1)} s = ${Math.round(jobRate)} orders/s, peak RSS ${mb(job.rssKiB)} MB`,
  );

  // Every result written: one item per order for this run, and every order checked once.
  db = await openDatabase(dbConfig(), { poolMax: 2 });
  const [{ items }] = (await db.knex.raw('SELECT count(*)::int AS items FROM recon_items WHERE run_id = ?', [run.runId])).rows;
  // The run's own span (excludes process start, tsx compile, connect): shows how much of the wall time is start-up.
  const [{ runSeconds }] = (
    await db.knex.raw('SELECT extract(epoch FROM finished_at - started_at)::float8 AS "runSeconds" FROM job_runs WHERE id = ?', [run.runId])
  ).rows;
  const [{ checkedOrders }] = (
    await db.knex.raw(
      `SELECT (SELECT count(*) FROM payment_orders WHERE check_count = 1) + (SELECT count(*) FROM payout_orders WHERE check_count = 1) AS "checkedOrders"`,
    )
  ).rows;
  // Whether the order updates were HOT (heap-only: no index entry written), and what the tables weigh.
  const tableStats = (
    await db.knex.raw(
      `SELECT relname, n_tup_upd::int8::text AS upd, n_tup_hot_upd::int8::text AS hot,
              pg_size_pretty(pg_table_size(relid)) AS heap, pg_size_pretty(pg_indexes_size(relid)) AS indexes
         FROM pg_stat_user_tables WHERE relname IN ('payment_orders', 'payout_orders', 'order_checks') ORDER BY relname`,
    )
  ).rows as Array<{ relname: string; upd: string; hot: string; heap: string; indexes: string }>;
  await db.close();
  let pgCost: PgCost | undefined;
  if (server && dbName && pgBefore && pgAfter) {
    pgCost = await costOf(server, dbName, pgBefore, pgAfter, N);
    const { statements, blocks_read_per_order, blocks_hit_per_order, ...wal } = pgCost;
    log(`postgres per order: ${JSON.stringify(wal)}`);
    log(`blocks read per order: ${JSON.stringify(blocks_read_per_order)}`);
    log(`blocks hit per order: ${JSON.stringify(blocks_hit_per_order)}`);
    for (const st of statements)
      log(`statement ${st.ms_total} ms, ${st.calls} calls, ${st.blks_read} read, ${st.wal_fpi} FPI: ${st.query}`);
  }
  for (const t of tableStats) log(`table ${t.relname}: ${t.upd} updates, ${t.hot} HOT; heap ${t.heap}, indexes ${t.indexes}`);
  const verified = run.status === 'completed' && run.checked === N && Number(items) === N && Number(checkedOrders) === N;
  const perOrder = (sec: number) => (Number.isNaN(sec) ? 'n/a' : `${((sec * 1e6) / N).toFixed(0)} µs`);
  // The creep figure (issue 42): what the job costs per order against the HTTP client it wraps, both CPU time.
  const jobCpuUs = Math.round((cpu.job * 1e6) / N);
  const ratio = cpuRatio(jobCpuUs, ceilingBefore.cpu_us_per_request, ceilingAfter.cpu_us_per_request);
  const steadyUs = steadyCpuUs(cpu.job, N, warmSplit);
  const steadyRatio = steadyUs === null ? null : cpuRatio(steadyUs, ceilingBefore.cpu_us_per_request, ceilingAfter.cpu_us_per_request);
  const ratioLine =
    `job CPU per order / fetch-only client CPU per request: ${ratio.toFixed(2)} ` +
    `(job ${jobCpuUs} µs per order; client ${ceilingBefore.cpu_us_per_request} µs per request before the job, ${ceilingAfter.cpu_us_per_request} after)`;
  const cpuLine =
    `CPU per order: job ${perOrder(cpu.job)} (fetch-only client ${ceilingBefore.cpu_us_per_request} µs/request), sandbox ${perOrder(cpu.sandbox)}, ` +
    `job's Postgres backends ${perOrder(cpu.postgres)}, over ${job.seconds.toFixed(1)} s wall on ${os.availableParallelism()} cores`;
  log(cpuLine);
  if (warmSplit && steadyUs !== null) {
    log(
      `job's fixed costs and steady state: ${warmSplit.cpuSeconds.toFixed(2)} s CPU until ${warmSplit.checked} orders were checked ` +
        `(start-up, warm-up), then ${steadyUs} µs per order: ${steadyRatio!.toFixed(2)} × the client after warm-up`,
    );
  }
  log(`run span ${Number(runSeconds).toFixed(1)} s = ${Math.round(N / runSeconds)} orders/s in-run`);
  log(
    `verify: run ${run.status}, checked ${run.checked}, recon_items ${items}, orders with check_count 1: ${checkedOrders} => ${verified ? 'OK' : 'FAILED'}`,
  );

  // ---------- report ----------
  let report: { seconds: number; rssKiB: number } | undefined;
  if (!values['skip-report']) {
    const today = new Date().toISOString().slice(0, 10);
    const r = await runChild(
      'report',
      [process.execPath, ...NODE_ARGS, '--import', RSS_PRELOAD, CLI, 'report', '--date', today],
      childEnv({}),
      tmp,
    );
    if (r.code !== 0) throw new Error(`report exited ${r.code}: ${r.stderr.slice(-2000)}`);
    report = r;
    log(`report --date ${today}: ${r.seconds.toFixed(1)} s, peak RSS ${mb(r.rssKiB)} MB`);
  }

  // ---------- naive baseline ----------
  let baseline: { sample: number; rate: number } | undefined;
  if (!values['skip-baseline']) {
    // Enough orders for a stable rate, few enough to finish in ~20 s whatever the latency.
    const sample = Math.min(N, L > 0 ? Math.max(100, Math.floor(20_000 / L)) : 2000);
    baseline = { sample, rate: await naiveBaseline(baseUrl, sample) };
    log(`naive baseline: ${sample} orders one at a time = ${Math.round(baseline.rate)} orders/s`);
  }

  // ---------- table ----------
  const cOverL = L > 0 ? (C * 1000) / L : undefined;
  const row = [
    N.toLocaleString('en-US'),
    `${L} ms`,
    String(C),
    `${Math.round(ceiling.rps)} (${ceilingBefore.rps} before, ${ceilingAfter.rps} after)`,
    `${Math.round(jobRate)} (${job.seconds.toFixed(1)} s; in-run ${Math.round(N / runSeconds)})`,
    (jobRate / ceiling.rps).toFixed(2),
    cOverL ? `${(jobRate / cOverL).toFixed(2)} (C/L = ${Math.round(cOverL)})` : 'n/a',
    `${mb(job.rssKiB)} MB`,
    verified ? `yes (${Number(items).toLocaleString('en-US')})` : `NO (${items} items, ${run.checked} checked)`,
    report ? `${report.seconds.toFixed(1)} s / ${mb(report.rssKiB)} MB` : 'skipped',
    baseline ? `${Math.round(baseline.rate)} (${baseline.sample} sampled)` : 'skipped',
  ];
  const header = [
    'orders',
    'latency',
    'concurrency',
    'ceiling req/s (mean)',
    'job orders/s (wall; in-run)',
    'job / ceiling',
    'job / (C/L)',
    'job peak RSS',
    'all results written',
    'report (s / peak RSS)',
    'naive orders/s',
  ];
  const table = `| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n| ${row.join(' | ')} |\n`;
  const command = `${server ? 'BENCH_DATABASE_URL=<postgres> ' : ''}npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
  const machine =
    `${os.cpus()[0]?.model ?? 'cpu'} × ${os.availableParallelism()} (nproc), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ` +
    `database ${server ? 'Postgres (' + (await serverVersion()) + ')' : 'PGlite'}, processes from ${path.relative(ROOT, CLI)} (--cli ${values.cli}); ` +
    `load average before job ${loadBeforeJob}, after job ${loadAfterJob}`;
  process.stdout.write(`\n${table}\n${machine}\n`);
  const perOrderUs = (sec: number) => (Number.isNaN(sec) ? null : Math.round((sec * 1e6) / N));
  const file = recordResult('run', {
    commit: COMMIT,
    command,
    machine: benchMachine(server ? `Postgres ${await serverVersion()}` : 'PGlite'),
    load: { before_job: loadBeforeJob.split(' ').map(Number), after_job: loadAfterJob.split(' ').map(Number) },
    figures: {
      orders: N,
      latency_ms: L,
      concurrency: C,
      cli: values.cli,
      ceiling_req_per_s: { mean: Math.round(ceiling.rps), before: ceilingBefore.rps, after: ceilingAfter.rps },
      job_orders_per_s: Math.round(jobRate),
      job_seconds: Number(job.seconds.toFixed(1)),
      job_in_run_orders_per_s: Math.round(N / runSeconds),
      job_over_ceiling: Number((jobRate / ceiling.rps).toFixed(2)),
      job_over_c_per_l: cOverL ? Number((jobRate / cOverL).toFixed(2)) : null,
      job_cpu_over_client_cpu: ratio,
      // The job after its start-up and warm-up (the first fifth of the orders), against the same client figure.
      job_steady_cpu_over_client_cpu: steadyRatio,
      job_fixed_cpu: warmSplit ? { seconds: Number(warmSplit.cpuSeconds.toFixed(2)), until_checked: warmSplit.checked } : null,
      job_peak_rss_mb: mb(job.rssKiB),
      cpu_us_per_order: {
        job: perOrderUs(cpu.job),
        job_steady: steadyUs,
        fetch_only_client_per_request: ceilingBefore.cpu_us_per_request,
        fetch_only_client_per_request_after: ceilingAfter.cpu_us_per_request,
        sandbox: perOrderUs(cpu.sandbox),
        postgres: perOrderUs(cpu.postgres),
      },
      all_results_written: verified,
      items: Number(items),
      report: report ? { seconds: Number(report.seconds.toFixed(1)), peak_rss_mb: mb(report.rssKiB) } : null,
      naive: baseline ? { orders_per_s: Math.round(baseline.rate), sampled: baseline.sample } : null,
      run_counts: run.counts,
      ...(pgCost ? { postgres: pgCost } : {}),
    },
    ...(NODE_ARGS.length ? { notes: [`measured processes ran with BENCH_NODE_ARGS=${NODE_ARGS.join(' ')}`] } : {}),
  });
  log(`recorded in ${path.relative(ROOT, file)} (npm run bench:check compares it with the best of this machine)`);
  // Last, so it is the line a reader (and a script) finds.
  process.stdout.write(`${ratioLine}\n`);
  if (!verified) process.exitCode = 1;
} finally {
  if (sandbox && sandbox.exitCode === null) {
    sandbox.kill('SIGTERM');
    await once(sandbox, 'exit').catch(() => undefined);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  if (dbName) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
}

/** utime + stime of a live process, in seconds (0 once it is gone). */
function procCpuSeconds(pid: number): number {
  try {
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** Orders the running reconcile run has checked (its row's count, moved by each batch's checkpoint); null before it exists. */
async function runChecked(): Promise<number | null> {
  if (!warmClient) {
    warmClient = new pg.Client({ connectionString: dbUrl, application_name: WARM_SPLIT_APP });
    await warmClient.connect();
  }
  const { rows } = await warmClient.query(
    `SELECT max(checked)::int AS n FROM ${SCHEMA}.job_runs WHERE job = 'reconcile' AND status = 'running'`,
  );
  return (rows[0] as { n: number | null }).n;
}

/** Latest CPU seconds of every backend connected to the bench database (only the job connects while it runs). */
async function samplePgBackends(into: Map<number, number>): Promise<void> {
  const c = new pg.Client({ connectionString: server });
  try {
    await c.connect();
    const { rows } = await c.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> $2',
      [dbName, WARM_SPLIT_APP],
    );
    for (const { pid } of rows as Array<{ pid: number }>) {
      const s = procCpuSeconds(pid);
      if (s > 0) into.set(pid, s);
    }
  } catch {
    // A sample lost to a busy server is not worth failing the bench for.
  } finally {
    await c.end().catch(() => undefined);
  }
}

function mb(kib: number): number {
  return Math.round(kib / 1024);
}

async function serverVersion(): Promise<string> {
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  try {
    return (await c.query('SHOW server_version')).rows[0].server_version as string;
  } finally {
    await c.end();
  }
}

/** Runs a child to completion; wall time, stdout, stderr and (with the preload) its peak RSS in KiB. */
async function runChild(
  name: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  onSpawn?: (pid: number) => void,
): Promise<{ code: number; seconds: number; stdout: string; stderr: string; rssKiB: number; cpuSeconds: number }> {
  const rssFile = path.join(tmp, `${name}.rss`);
  const start = performance.now();
  const child = spawn(argv[0], argv.slice(1), { cwd, env: { ...env, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  onSpawn?.(child.pid!);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - start) / 1000;
  const usage = fs.existsSync(rssFile)
    ? (JSON.parse(fs.readFileSync(rssFile, 'utf8')) as { maxRSS: number; cpuMicros: number })
    : { maxRSS: 0, cpuMicros: 0 };
  return { code: code ?? -1, seconds, stdout, stderr, rssKiB: usage.maxRSS, cpuSeconds: usage.cpuMicros / 1e6 };
}

/**
 * What a first implementation would do: one order at a time, fetch it, then UPDATE its row.
 * Runs in this process after the job (it touches only last_checked_at, so the job's figures stand).
 */
async function naiveBaseline(baseUrl: string, sample: number): Promise<number> {
  const config = loadConfig({
    ...MERCHANT,
    PROVIDER_BASE_URL: baseUrl,
    RECON_CONCURRENCY: '1',
    LOG_LEVEL: 'silent',
    ...(dbUrl ? { DATABASE_URL: dbUrl } : { PGLITE_DIR: pgliteDir }),
  });
  const db = await openDatabase(config, { poolMax: 2 });
  const client = await createProviderClient(config);
  try {
    const rows = (
      await db.knex.raw(
        `(SELECT 'payment' AS d, id, transaction_ref FROM payment_orders ORDER BY id LIMIT ?)
       UNION ALL (SELECT 'payout', id, transaction_ref FROM payout_orders ORDER BY id LIMIT ?)`,
        [Math.ceil(sample / 2), Math.floor(sample / 2)],
      )
    ).rows as Array<{ d: string; id: string; transaction_ref: string }>;
    const start = performance.now();
    for (const r of rows) {
      const o = r.d === 'payment' ? await client.fetchPayment(r.transaction_ref) : await client.fetchPayout(r.transaction_ref);
      await db.knex.raw(
        `UPDATE ${r.d === 'payment' ? 'payment_orders' : 'payout_orders'} SET last_checked_at = now() WHERE id = ? AND status <> ?`,
        [r.id, o.status],
      );
    }
    return rows.length / ((performance.now() - start) / 1000);
  } finally {
    await client.close();
    await db.close();
  }
}
