/**
 * Rows and bytes one account's day leaves in Postgres (issue 41's on-paper scale-out plan).
 *
 *   BENCH_DATABASE_URL=postgres://… node --import tsx bench/table-sizes.ts [--orders N=20000]
 *
 * A scratch database (payrecon_sizes_<random>): N synthetic orders loaded as one account's day, one full
 * reconcile pass (every order checked once against the in-process sandbox), a snapshot, the day's
 * report; then each table's rows and total bytes (heap, indexes, TOAST), per order. Prints a
 * markdown table and one JSON line appended to bench/results/table-sizes.jsonl.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import { silentLogger } from '../src/log/logger.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { snapshotJob } from '../src/services/snapshot.ts';
import { reportJob } from '../src/services/report.ts';
import { loadSyntheticOrders } from './lib/load-synthetic.ts';
import { CHECK_AT_ONCE } from './lib/check-at-once.ts';
import { createScratchDatabase } from './lib/scratch-database.ts';
import { benchMachine, currentCommit } from './lib/record.ts';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '20000' }, seed: { type: 'string', default: '7' } } });
const N = Number(values.orders);
const SEED = Number(values.seed);
const server = process.env.BENCH_DATABASE_URL;
if (!server) throw new Error('BENCH_DATABASE_URL: a Postgres server (the sizes are Postgres ones)');
const ROOT = path.resolve(import.meta.dirname, '..');

const scratch = await createScratchDatabase(server, 'payrecon_sizes');
const sandbox = await startSandbox({ merchants: [{ id: 'sizes-merchant', secret: 'sizes-secret-0123456789' }] });
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-sizes-'));
try {
  const config = loadConfig({
    DATABASE_URL: scratch.url,
    PROVIDER_BASE_URL: sandbox.url,
    PROVIDER_MERCHANT_ID: 'sizes-merchant',
    PROVIDER_SECRET: 'sizes-secret-0123456789',
    REPORT_DIR: reportDir,
    RECON_CONCURRENCY: '32',
    LOG_LEVEL: 'error',
    ...CHECK_AT_ONCE,
  });
  await new SandboxControl(sandbox.url).bulkSeed({ seed: SEED, count: N, merchantId: 'sizes-merchant' });
  const db = await openDatabase(config, { poolMax: 4 });
  await migrate(db);
  await loadSyntheticOrders(db, { seed: SEED, count: N, now: Date.now() });
  const context = { config, logger: silentLogger, db };
  const rec = await reconcileJob({ progress: false }, context);
  const checked = rec.outcome.runs.reduce((n, r) => n + r.checked, 0);
  await snapshotJob({}, context);
  await reportJob({ date: new Date().toISOString().slice(0, 10) }, context);
  await db.knex.raw('VACUUM ANALYZE');
  const { rows } = (await db.knex.raw(
    `SELECT c.relname AS name, c.reltuples::bigint AS estimate, pg_total_relation_size(c.oid)::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ? AND c.relkind = 'r' ORDER BY bytes DESC`,
    [config.DATABASE_SCHEMA],
  )) as { rows: { name: string; estimate: string; bytes: string }[] };
  const tables = [];
  for (const r of rows) {
    const [{ n }] = (await db.knex(r.name).count({ n: '*' })) as { n: string }[];
    if (Number(n) === 0) continue;
    tables.push({ table: r.name, rows: Number(n), bytes: Number(r.bytes) });
  }
  await db.close();
  const total = tables.reduce((s, t) => s + t.bytes, 0);
  console.log(`${N} orders, ${checked} checked once, ${new Date().toISOString()}, load ${os.loadavg()[0].toFixed(1)}`);
  console.log('| table | rows | rows per order | bytes | bytes per order |\n| --- | ---: | ---: | ---: | ---: |');
  for (const t of tables.filter((x) => x.rows >= N / 100))
    console.log(`| ${t.table} | ${t.rows} | ${(t.rows / N).toFixed(2)} | ${t.bytes} | ${Math.round(t.bytes / N)} |`);
  console.log(`| all tables | | | ${total} | ${Math.round(total / N)} |`);
  const line = {
    at: new Date().toISOString(),
    commit: currentCommit(),
    machine: benchMachine(),
    orders: N,
    checked,
    tables,
    totalBytes: total,
  };
  fs.appendFileSync(path.join(ROOT, 'bench/results/table-sizes.jsonl'), `${JSON.stringify(line)}\n`);
} finally {
  await sandbox.close();
  await scratch.drop();
  fs.rmSync(reportDir, { recursive: true, force: true });
}
