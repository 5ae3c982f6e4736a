/**
 * The provider budget under load (issue 18), against the sandbox's rate-limit mode and a real Postgres:
 *
 *   BENCH_DATABASE_URL=postgres://…/postgres node --import tsx bench/budget.ts [--rate 200] [--seconds 30] [--storm-rate 100] [--storm-orders 3000]
 *     [--cli dist|tsx] [--sandbox-nice -10]
 *
 * --cli: the sandbox and the job run the compiled build (`dist`, the default, as production does; `npm run build`
 * first) or the sources through tsx. The two workers always run through tsx: they are the harness's.
 * --sandbox-nice: the sandbox stands in for a provider on machines of its own, but here it shares 2 cores with
 * the three payrecon processes and Postgres: waiting for a core (or in a GC pause), it stamped requests that had
 * arrived 15-30 ms earlier all at once, a window over R of its own making. It runs at this scheduling priority
 * (default -10, needs root; 0 for the same priority as the rest); the table says which applied.
 *
 * 1. Rate-capped: the sandbox answers 429 above R requests per sliding second; three processes share
 *    PROVIDER_RATE_LIMIT=R through the database: `payrecon reconcile` (the due sweep, C = 64), a worker
 *    offering urgent fetches at 40/s (webhook confirmations), a worker fetching as fast as the budget
 *    allows at sweep priority. Prints the achieved total over the window all three run (target ≥ 0.97 R),
 *    the 429s, and the busiest one-second window and calendar second at the sandbox (target ≤ R).
 * 2. 429 storm: the job with no client-side limit against a sandbox limited to the storm rate: it must
 *    complete with every order checked and none in error; prints the 429s and requests per order.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { loadSyntheticOrders } from './lib/load-synthetic.ts';
import { CHECK_AT_ONCE } from './lib/check-at-once.ts';
import { cliEntry } from './lib/cli-entry.ts';
import { benchMachine, recordResult } from './lib/record.ts';
import { createScratchDatabase } from './lib/scratch-database.ts';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '30' },
    'storm-rate': { type: 'string', default: '100' },
    'storm-orders': { type: 'string', default: '3000' },
    cli: { type: 'string', default: 'dist' },
    'sandbox-nice': { type: 'string', default: '-10' },
  },
});
const R = Number(values.rate);
const T = Number(values.seconds);
const STORM_R = Number(values['storm-rate']);
const STORM_N = Number(values['storm-orders']);
const SEED = 11;
const N = 50_000;
const MERCHANT = { PROVIDER_MERCHANT_ID: 'bench-merchant', PROVIDER_SECRET: 'bench-secret-0123456789' };
const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = cliEntry(ROOT, values.cli);
const SANDBOX_NICE = Number(values['sandbox-nice']);
if (!Number.isInteger(SANDBOX_NICE) || SANDBOX_NICE < -20 || SANDBOX_NICE > 19) {
  throw new Error(`--sandbox-nice: expected a whole number from -20 to 19 (got ${values['sandbox-nice']})`);
}
const server = process.env.BENCH_DATABASE_URL;
if (!server) throw new Error('BENCH_DATABASE_URL: a Postgres server is needed (the budget is shared through it)');

const log = (msg: string) =>
  process.stderr.write(`[budget ${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(2)}] ${msg}\n`);
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const scratch = await createScratchDatabase(server, 'payrecon_bench');
const dbUrl = scratch.url;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-budget-'));
const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  ...MERCHANT,
  DATABASE_URL: dbUrl,
  LOG_LEVEL: 'warn',
  ...CHECK_AT_ONCE,
  ...extra,
});

/** Children run in the temporary directory (no .env leaks in); `tsx` ones from the checkout, where tsx resolves. */
function start(argv: string[], extra: Record<string, string>) {
  const cwd = argv.includes('tsx') ? ROOT : tmp;
  const child = spawn(argv[0], argv.slice(1), { cwd, env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
  const done = once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr }));
  return { child, done: done.then((r) => ({ ...r, stdout, stderr })) };
}

const sandbox = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--seed', String(SEED)], {
  cwd: tmp,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: env({}),
});
const sandboxPriority = (() => {
  try {
    os.setPriority(sandbox.pid!, SANDBOX_NICE);
    return `sandbox at nice ${SANDBOX_NICE}`;
  } catch (err) {
    return `sandbox at the default priority (nice ${SANDBOX_NICE} refused: ${(err as Error).message})`;
  }
})();
try {
  const [line] = (await once(createInterface({ input: sandbox.stdout! }), 'line')) as [string];
  const baseUrl = /listening on (http:\/\/\S+)/.exec(line)![1];
  const control = new SandboxControl(baseUrl);
  await control.bulkSeed({ seed: SEED, count: N, merchantId: MERCHANT.PROVIDER_MERCHANT_ID });
  const config = loadConfig({ ...MERCHANT, DATABASE_URL: dbUrl, LOG_LEVEL: 'silent' });
  const db = await openDatabase(config, { poolMax: 2 });
  await migrate(db);
  await loadSyntheticOrders(db, { seed: SEED, count: N, now: Date.now() });
  log(
    `sandbox ${baseUrl} (${sandboxPriority}), ${N} orders seeded and loaded into ${scratch.name}; sandbox and job from ${path.relative(ROOT, CLI)}`,
  );

  // ---------- 1. three processes sharing R ----------
  const loadBefore = loadavg();
  await control.setRateLimit(R);
  const provider = { PROVIDER_BASE_URL: baseUrl, PROVIDER_RATE_LIMIT: String(R) };
  const tsx = [
    process.execPath,
    '--import',
    'tsx',
    path.join(ROOT, 'bench', 'budget-worker.ts'),
    '--seed',
    String(SEED),
    '--orders',
    String(N),
  ];
  const job = start([process.execPath, CLI, 'reconcile', '--json'], { ...provider, RECON_CONCURRENCY: '64' });
  const urgent = start([...tsx, '--seconds', String(T), '--priority', 'urgent', '--offer', '40', '--concurrency', '16'], provider);
  const sweeper = start([...tsx, '--seconds', String(T), '--priority', 'sweep', '--concurrency', '32'], provider);
  // The window where all three run: after their start-up (tsx compiles, pools connect), before the workers end.
  await new Promise((r) => setTimeout(r, 8_000));
  const a = await control.stats();
  const ta = performance.now();
  await new Promise((r) => setTimeout(r, (T - 10) * 1000));
  const b = await control.stats();
  const tb = performance.now();
  const [u, s] = await Promise.all([urgent.done, sweeper.done]);
  job.child.kill('SIGTERM');
  const j = await job.done;
  const loadAfter = loadavg();
  const capped = await control.stats();
  const achieved = (b.requests.total - a.requests.total) / ((tb - ta) / 1000);
  const parse = (name: string, r: { code: number | null; stdout: string; stderr: string }) => {
    if (r.code !== 0) throw new Error(`${name} exited ${r.code}: ${r.stderr.slice(-2000)}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { ok: number; errors: number; seconds: number; expiredSlots: number };
  };
  const uw = parse('urgent worker', u);
  const sw = parse('sweep worker', s);
  const jobChecked = (() => {
    try {
      return (JSON.parse(j.stdout) as { runs: Array<{ checked: number }> }).runs.reduce((n, r) => n + r.checked, 0);
    } catch {
      return NaN;
    }
  })();
  log(`rate-capped: exit codes job ${j.code}, urgent ${u.code}, sweep ${s.code}${j.code ? `; job stderr ${j.stderr.slice(-500)}` : ''}`);
  const cappedRow = [
    `${R}/s`,
    `${Math.round(achieved)}/s = ${(achieved / R).toFixed(3)} R (over ${((tb - ta) / 1000).toFixed(1)} s)`,
    String(capped.rate.throttled),
    `${capped.rate.busiestWindow} / ${capped.rate.busiestSecond}`,
    `urgent worker ${(uw.ok / uw.seconds).toFixed(1)}/s of 40 offered; sweep worker ${(sw.ok / sw.seconds).toFixed(1)}/s; job ${jobChecked} orders checked before SIGTERM; slots given up late by the workers: ${uw.expiredSlots + sw.expiredSlots}`,
    `${loadBefore} → ${loadAfter}`,
  ];

  // ---------- 2. 429 storm ----------
  await db.knex.raw('TRUNCATE payment_orders, payout_orders, recon_items, job_runs CASCADE');
  await loadSyntheticOrders(db, { seed: SEED, count: STORM_N, now: Date.now() });
  await control.setRateLimit(STORM_R);
  const stormLoadBefore = loadavg();
  const before = await control.stats();
  const t0 = performance.now();
  const storm = await start([process.execPath, CLI, 'reconcile', '--json'], { PROVIDER_BASE_URL: baseUrl, RECON_CONCURRENCY: '64' }).done;
  const stormSeconds = (performance.now() - t0) / 1000;
  const after = await control.stats();
  const outcome = JSON.parse(storm.stdout) as {
    runs: Array<{ runId: string; status: string; checked: number; counts: Record<string, number> }>;
  };
  const run = outcome.runs[outcome.runs.length - 1];
  const [{ items }] = (await db.knex.raw('SELECT count(*)::int AS items FROM recon_items WHERE run_id = ?', [run.runId])).rows;
  const requests = after.requests.total - before.requests.total;
  const errorsInRun = run.counts['verdict:error'] ?? 0;
  const stormRow = [
    `${STORM_R}/s, client unlimited, C = 64`,
    `${run.status}, exit ${storm.code}`,
    `${run.checked} of ${STORM_N} checked, ${items} items, ${errorsInRun} errors`,
    String(after.rate.throttled),
    `${requests} (${(requests / STORM_N).toFixed(2)} per order)`,
    `${stormSeconds.toFixed(1)} s (${Math.round(STORM_N / stormSeconds)} orders/s)`,
    `${stormLoadBefore} → ${loadavg()}`,
  ];
  await db.close();
  recordResult('budget', {
    command: `${server ? 'BENCH_DATABASE_URL=<postgres> ' : ''}node --import tsx bench/budget.ts ${process.argv.slice(2).join(' ')}`.trim(),
    machine: benchMachine('Postgres'),
    load: {
      capped_start: loadBefore.split(' ').map(Number),
      capped_end: loadAfter.split(' ').map(Number),
      storm_start: stormLoadBefore.split(' ').map(Number),
    },
    figures: {
      rate_limit_per_s: R,
      achieved_per_s: Math.round(achieved),
      achieved_over_r: Number((achieved / R).toFixed(3)),
      http_429: capped.rate.throttled,
      busiest_window: capped.rate.busiestWindow,
      busiest_calendar_second: capped.rate.busiestSecond,
      urgent_worker_per_s: Number((uw.ok / uw.seconds).toFixed(1)),
      sweep_worker_per_s: Number((sw.ok / sw.seconds).toFixed(1)),
      slots_given_up_late: uw.expiredSlots + sw.expiredSlots,
      sandbox_priority: sandboxPriority,
      storm: {
        sandbox_limit_per_s: STORM_R,
        orders: STORM_N,
        run_status: run.status,
        checked: run.checked,
        items: Number(items),
        errors: errorsInRun,
        http_429: after.rate.throttled,
        requests: requests,
        requests_per_order: Number((requests / STORM_N).toFixed(2)),
        seconds: Number(stormSeconds.toFixed(1)),
      },
    },
  });

  const table = (header: string[], row: string[]) =>
    `| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n| ${row.join(' | ')} |\n`;
  process.stdout.write(
    `\nRate-capped, 3 processes sharing PROVIDER_RATE_LIMIT through Postgres (${sandboxPriority}; sandbox and job from ${path.relative(ROOT, CLI)}):\n\n${table(
      ['R', 'achieved total', '429s', 'busiest 1-s window / calendar second at the sandbox', 'per process', 'load (1/5/15)'],
      cappedRow,
    )}\n429 storm:\n\n${table(['sandbox limit', 'run', 'orders', '429s', 'requests at the sandbox', 'wall', 'load (1/5/15)'], stormRow)}`,
  );
} finally {
  sandbox.kill('SIGTERM');
  await once(sandbox, 'exit').catch(() => undefined);
  await scratch.drop().catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}
