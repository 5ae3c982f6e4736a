/**
 * Soak: reconcile N orders (default 1,000,000) against the sandbox with 1% injected faults, on a
 * fresh Postgres database, and prove nothing was lost: every selected order has exactly one item in
 * the run, none has two. Prints the figures; exits 1 if anything was lost or duplicated.
 *
 *   node --import tsx bench/soak.ts [--orders 1000000] [--seed 7] [--concurrency 64] [--batch 1000] [--keep]
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server; a new
 * database payrecon_soak_<random> is created there and dropped at the end (kept with --keep).
 * Faults (sandbox, probabilistic, per provider fetch): 0.5% HTTP 500 (retried by the client, so
 * they mostly end resolved) and 0.5% malformed JSON (not retried: error items with the reason).
 * Orders are bulk-loaded from src/sandbox/synthetic.ts (the same ones the sandbox's bulk seed knows)
 * with an unnest-based INSERT, as bench/run.ts does.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { loadSyntheticOrders } from './lib/load-synthetic.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { loadActiveBankCodes } from '../src/db/bank-codes.ts';
import { createLogger } from '../src/log/logger.ts';
import { CHECK_AT_ONCE } from './lib/check-at-once.ts';
import { benchMachine, loadAverages, recordResult } from './lib/record.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin/payrecon.mjs');

function flag(name: string, fallback: number, min: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1] ?? '';
  if (!/^\d+$/.test(v) || Number(v) < min) {
    process.stderr.write(`--${name}: expected a whole number of at least ${min} (got ${JSON.stringify(v)})\n`);
    process.exit(3);
  }
  return Number(v);
}

const N = flag('orders', 1_000_000, 1);
const SEED = flag('seed', 7, 0);
const CONCURRENCY = flag('concurrency', 64, 1);
const BATCH = flag('batch', 1000, 1);
const KEEP = process.argv.includes('--keep');
const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MERCHANT = { PROVIDER_MERCHANT_ID: 'soak-merchant', PROVIDER_SECRET: 'soak-secret-0123456789' };
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: SERVER });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const dbName = `payrecon_soak_${randomBytes(4).toString('hex')}`;
const dbUrl = (() => {
  const u = new URL(SERVER);
  u.pathname = `/${dbName}`;
  return u.toString();
})();

let sandbox: ReturnType<typeof spawn> | undefined;
let db: Db | undefined;
let exitCode = 0;
try {
  sandbox = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--seed', String(SEED)], {
    cwd: os.tmpdir(),
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...MERCHANT },
  });
  const [line] = (await once(createInterface({ input: sandbox.stdout! }), 'line')) as [string];
  const baseUrl = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!baseUrl) throw new Error(`sandbox: unexpected first line ${JSON.stringify(line)}`);
  const control = new SandboxControl(baseUrl);
  await control.bulkSeed({ seed: SEED, count: N, merchantId: MERCHANT.PROVIDER_MERCHANT_ID });
  const operations: Array<'paymentFetch' | 'payoutFetch'> = ['paymentFetch', 'payoutFetch'];
  await control.addFault({ kind: 'status500', probability: 0.005, operations });
  await control.addFault({ kind: 'malformedJson', probability: 0.005, operations });
  log(`sandbox ${baseUrl}: ${N} orders seeded (seed ${SEED}); faults: 0.5% HTTP 500, 0.5% malformed JSON`);

  await admin(`CREATE DATABASE ${dbName}`);
  const config = loadConfig({ DATABASE_URL: dbUrl, PROVIDER_BASE_URL: baseUrl, ...MERCHANT, LOG_LEVEL: 'warn', ...CHECK_AT_ONCE });
  db = await openDatabase(config, { applicationName: 'payrecon-soak' });
  await migrate(db);
  const loadStart = performance.now();
  await loadSyntheticOrders(db, { seed: SEED, count: N, now: Date.now() });
  await db.knex.raw('ANALYZE');
  log(`loaded ${N} orders into ${dbName} in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);

  const logger = createLogger({ level: 'error' }); // retries of the injected 500s would be a warning each
  const client = await createProviderClient(config, { logger, retryBaseMs: 20, maxRetries: 3, concurrency: CONCURRENCY });
  const start = performance.now();
  let lastLog = start;
  const outcome = await reconcile(
    {
      db,
      fetcher: client,
      policy: policyFromConfig(config, await loadActiveBankCodes(db.knex)),
      clock: () => new Date(),
      logger,
      concurrency: CONCURRENCY,
      batchSize: BATCH,
      onProgress: (p) => {
        const t = performance.now();
        if (t - lastLog > 10_000) {
          lastLog = t;
          log(`${p.checked}/${p.selected} checked, ${Math.round(p.checked / ((t - start) / 1000))} orders/s`);
        }
      },
    },
    { selection: buildSelection({}, { now: new Date(), zone: 'UTC', lookbackDays: 30 }), dryRun: false },
  );
  const seconds = (performance.now() - start) / 1000;
  await client.close();

  const run = outcome.runs.at(-1)!;
  const k = db.knex;
  const one = async (sql: string, bindings: unknown[] = []) =>
    Number(((await k.raw(sql, bindings as never)) as { rows: Array<{ n: string }> }).rows[0].n);
  const inDb = (await one('SELECT count(*) AS n FROM payment_orders')) + (await one('SELECT count(*) AS n FROM payout_orders'));
  const items = await one('SELECT count(*) AS n FROM recon_items WHERE run_id = ?', [run.runId]);
  const noItem =
    (await one(
      `SELECT count(*) AS n FROM payment_orders o WHERE NOT EXISTS (SELECT 1 FROM recon_items i WHERE i.run_id = ? AND i.direction = 'payment' AND i.order_id = o.id)`,
      [run.runId],
    )) +
    (await one(
      `SELECT count(*) AS n FROM payout_orders o WHERE NOT EXISTS (SELECT 1 FROM recon_items i WHERE i.run_id = ? AND i.direction = 'payout' AND i.order_id = o.id)`,
      [run.runId],
    ));
  const duplicates = await one(
    'SELECT count(*) AS n FROM (SELECT direction, order_id FROM recon_items WHERE run_id = ? GROUP BY 1, 2 HAVING count(*) > 1) d',
    [run.runId],
  );
  const verdicts = await k('recon_items')
    .where({ run_id: run.runId })
    .select('verdict')
    .count<{ verdict: string; n: string }[]>('* as n')
    .groupBy('verdict')
    .orderBy('verdict');
  const stats = await control.stats();

  const figures = {
    orders_in_db: inDb,
    run_status: run.status,
    orders_selected: run.selected,
    orders_checked: run.checked,
    items_recorded: items,
    verdicts: Object.fromEntries(verdicts.map((v) => [v.verdict, Number(v.n)])),
    orders_with_no_item: noItem,
    duplicate_items: duplicates,
    provider_requests: stats.requests.total,
    faults_applied: stats.faultsApplied,
    seconds: Number(seconds.toFixed(1)),
    orders_per_second: Math.round(run.checked / seconds),
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  const ok = run.status === 'completed' && items === run.selected && run.selected === inDb && noItem === 0 && duplicates === 0;
  process.stdout.write(ok ? 'nothing lost: every order has exactly one item\n' : 'LOST OR DUPLICATED ORDERS: see the figures above\n');
  recordResult('soak', {
    command: `node --import tsx bench/soak.ts ${process.argv.slice(2).join(' ')}`.trim(),
    machine: benchMachine('Postgres'),
    load: { end: loadAverages() },
    figures: { ...figures, nothing_lost: ok },
  });
  if (!ok) exitCode = 1;
} catch (err) {
  process.stderr.write(`soak failed: ${(err as Error).stack ?? err}\n`);
  exitCode = 2;
} finally {
  await db?.close().catch(() => undefined);
  sandbox?.kill('SIGTERM');
  if (!KEEP) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  else log(`kept database ${dbUrl}`);
}
process.exit(exitCode);
