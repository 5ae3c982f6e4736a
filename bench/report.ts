/**
 * Times writeReports on N checked orders of one day (with the orders themselves) and prints seconds and peak RSS.
 *
 *   npx tsx bench/report.ts --orders 1000000
 *   npx tsx bench/report.ts --orders 1000000 --cli tsx    # the report as its own `payrecon report` process
 *   npx tsx bench/report.ts --orders 1000000 --cli dist   # the same through the compiled build (npm run build first)
 *
 * In-process, the peak RSS includes what seeding left behind and tsx's compiler; with --cli the
 * report runs in a fresh process (bin/payrecon.mjs through tsx, or dist/src/main.js as production
 * runs it) and its own peak RSS and CPU are measured at its exit (rss-at-exit.mjs).
 *
 * BENCH_DATABASE_URL: the Postgres server (default postgres://postgres@127.0.0.1:5432/postgres; its database is only
 * where CREATE DATABASE runs): a scratch database payrecon_bench_report_<random> is created there and dropped afterwards.
 * --keep: keep the seeded database and print its URL, to profile the report on it again.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import type { ExtraFileName } from '../src/report/manifest.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { benchMachine, loadAverages, recordResult } from './lib/record.ts';
import { createScratchDatabase } from './lib/scratch-database.ts';

const { values } = parseArgs({
  options: { orders: { type: 'string', default: '100000' }, cli: { type: 'string' }, keep: { type: 'boolean', default: false } },
});
const ROOT = path.resolve(import.meta.dirname, '..');
const cliEntry =
  values.cli === undefined
    ? null
    : values.cli === 'dist'
      ? path.join(ROOT, 'dist', 'src', 'main.js')
      : values.cli === 'tsx'
        ? path.join(ROOT, 'bin', 'payrecon.mjs')
        : null;
if (values.cli !== undefined && cliEntry === null) throw new Error('--cli: expected tsx or dist');
if (cliEntry && !fs.existsSync(cliEntry)) throw new Error(`${cliEntry} is missing (npm run build)`);
const orders = Number(values.orders);
if (!Number.isInteger(orders) || orders < 1) throw new Error('--orders: expected a positive whole number');

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const scratch = await createScratchDatabase(server, 'payrecon_bench_report');
const url = scratch.url;
const schema = 'payrecon';
const db = await openDatabase(loadConfig({ DATABASE_URL: url, DATABASE_SCHEMA: schema, LOG_LEVEL: 'silent' }), { poolMax: 2 });
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-bench-report-'));
try {
  await migrate(db);
  const seedStart = performance.now();
  await db.knex.raw(
    `INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '2024-05-01T00:00:00Z', 'completed'), (2, 'reconcile', '2024-05-01T00:00:00Z', 'completed')`,
  );
  // Every order once, spread over the day; every tenth a second, earlier check that must not be reported.
  await db.knex.raw(
    `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
       local_status, local_category, local_amount, local_paid_amount, local_fee,
       provider_status, provider_category, provider_amount, provider_paid_amount, provider_fee, provider_utr, verdict, codes, reason)
     SELECT CASE WHEN c = 0 THEN 2 ELSE 1 END, CASE WHEN g % 3 = 0 THEN 'payout' ELSE 'payment' END, g, 'M-' || md5(g::text), 'T-' || g,
            (ARRAY['INR','NGN','IDR'])[1 + g % 3], 'NATIVE',
            '2024-05-01T00:00:00Z'::timestamptz + (g % 86400) * interval '1 second' + (c * interval '1 millisecond'),
            'Success', 'success', 100 + (g % 1000) * 1.25, 100 + (g % 1000) * 1.25, 2.5,
            'Success', 'success', 100 + (g % 1000) * 1.25, 100 + (g % 1000) * 1.25 - (g % 50 = 0)::int, 2.5,
            CASE WHEN g % 3 = 0 THEN 'UTR' || g END,
            CASE WHEN g % 50 = 0 THEN 'mismatch' ELSE 'matched' END,
            CASE WHEN g % 50 = 0 THEN '{PAID_AMOUNT}'::text[] ELSE '{}'::text[] END,
            CASE WHEN g % 50 = 0 THEN 'paid amount differs' ELSE '' END
       FROM generate_series(1, ?::int) g, LATERAL (SELECT 0 AS c UNION ALL SELECT -1 WHERE g % 10 = 0) checks`,
    [orders],
  );
  // The orders themselves (a report is about the orders created on the day), each created a little
  // before its check and already final, so none is an open item.
  for (const [table, extra, extraValue, direction] of [
    ['payment_orders', 'paid_amount', '100 + (g % 1000) * 1.25', 'payment'],
    ['payout_orders', 'utr', "'UTR' || g", 'payout'],
  ] as const) {
    await db.knex.raw(
      `INSERT INTO ${table} (id, merchant_ref, transaction_ref, currency, method, amount, ${extra}, fee, status, status_category,
         created_at, updated_at, finalized_at, last_checked_at, check_count)
       SELECT g, 'M-' || md5(g::text), 'T-' || g, (ARRAY['INR','NGN','IDR'])[1 + g % 3], 'NATIVE', 100 + (g % 1000) * 1.25, ${extraValue}, 2.5,
              'Success', 'success', t, t, t, t, 1
         FROM generate_series(1, ?::int) g,
              LATERAL (SELECT '2024-05-01T00:00:00Z'::timestamptz + (g % 86400) * interval '1 second' AS t) x
        WHERE (g % 3 = 0) = ('${direction}' = 'payout')`,
      [orders],
    );
  }
  await db.knex.raw(`INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at)
    SELECT c, 1000000, 0, 0, 0, t FROM unnest(ARRAY['INR','NGN','IDR']) c, unnest(ARRAY['2024-05-01T00:01:00Z','2024-05-01T23:59:00Z']::timestamptz[]) t`);
  await db.knex.raw(`INSERT INTO rate_snapshots (currency, deposit, withdraw, taken_at)
    SELECT c, 83.1, 83.5, '2024-05-01T12:00:00Z' FROM unnest(ARRAY['INR','NGN','IDR']) c`);
  // About 1 % of rows carry commas, quotes, CR/LF or a formula, so quoting and neutralising are exercised
  // and the printed sha256 per file shows whether a change to src/report kept the bytes identical.
  await db.knex
    .raw(`UPDATE recon_items SET reason = CASE id % 4 WHEN 0 THEN 'a,b' WHEN 1 THEN 'say "hi"' WHEN 2 THEN E'x\\r\\ny' ELSE '=1+2' END,
      merchant_ref = merchant_ref || CASE WHEN id % 3 = 0 THEN ',"' ELSE '' END
    WHERE id % 97 = 0`);
  for (const table of ['payment_orders', 'payout_orders']) {
    await db.knex.raw(`UPDATE ${table} SET merchant_ref = merchant_ref || ',"' WHERE id % 97 = 0 AND id % 3 = 0`);
  }
  await db.knex.raw('ANALYZE');
  const seeded = (performance.now() - seedStart) / 1000;

  const rssBefore = process.resourceUsage().maxRSS;
  const start = performance.now();
  const child = cliEntry ? await reportProcess(cliEntry, url, schema, reportDir) : null;
  const r = child ? child.result : await writeReports(db, { date: '2024-05-01', timezone: 'UTC', reportDir, now: new Date() });
  const seconds = (performance.now() - start) / 1000;
  const items = r.manifest.files['items.csv'];
  const size = (name: ExtraFileName) => {
    const f = r.manifest.files[name];
    return f ? Number((f.bytes / 1e6).toFixed(1)) : null;
  };
  const figures = {
    orders,
    mode: cliEntry ? `payrecon report process (${path.relative(ROOT, cliEntry)})` : 'writeReports in the seeding process',
    load: os.loadavg().map((x) => Number(x.toFixed(2))),
    seed_seconds: Number(seeded.toFixed(1)),
    report_seconds: Number(seconds.toFixed(2)),
    items_rows: items.rows,
    items_mb: Number((items.bytes / 1e6).toFixed(1)),
    mismatch_rows: r.manifest.files['mismatches.csv'].rows,
    workbook_mb: size('reconciliation.xlsx'),
    html_mb: size('report.html'),
    rows_per_second: Math.round(items.rows / seconds),
    ...(child
      ? { peak_rss_mb: Math.round(child.rssKiB / 1024), cpu_seconds: Number(child.cpuSeconds.toFixed(1)) }
      : { peak_rss_mb_before_report: Math.round(rssBefore / 1024), peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }),
    sha256: Object.fromEntries(Object.entries(r.manifest.files).map(([name, f]) => [name, f!.sha256.slice(0, 16)])),
  };
  console.log(JSON.stringify(figures));
  recordResult('report', {
    command:
      `${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL=<postgres> ' : ''}node --import tsx bench/report.ts ${process.argv.slice(2).join(' ')}`.trim(),
    machine: benchMachine('Postgres'),
    load: { end: loadAverages() },
    figures,
  });
} finally {
  await db.close();
  fs.rmSync(reportDir, { recursive: true, force: true });
  if (values.keep) console.log(JSON.stringify({ kept: { url, schema } }));
  else await scratch.drop();
}

/** `payrecon report --date 2024-05-01 --json` as its own process, with its peak RSS and CPU time at exit. */
async function reportProcess(
  entry: string,
  databaseUrl: string,
  databaseSchema: string,
  dir: string,
): Promise<{ result: Awaited<ReturnType<typeof writeReports>>; rssKiB: number; cpuSeconds: number }> {
  const rssFile = path.join(dir, '..', `${path.basename(dir)}.rss`);
  const child = spawn(
    process.execPath,
    ['--import', path.join(ROOT, 'bench', 'rss-at-exit.mjs'), entry, 'report', '--date', '2024-05-01', '--json'],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: databaseUrl,
        DATABASE_SCHEMA: databaseSchema,
        REPORT_DIR: dir,
        REPORT_TIMEZONE: 'UTC',
        LOG_LEVEL: 'warn',
        BENCH_RSS_FILE: rssFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`payrecon report exited ${code}`);
  const usage = JSON.parse(fs.readFileSync(rssFile, 'utf8')) as { maxRSS: number; cpuMicros: number };
  fs.rmSync(rssFile, { force: true });
  return {
    result: JSON.parse(stdout) as Awaited<ReturnType<typeof writeReports>>,
    rssKiB: usage.maxRSS,
    cpuSeconds: usage.cpuMicros / 1e6,
  };
}
