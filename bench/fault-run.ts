/**
 * Fault run (issue 40): `payrecon schedule` against the sandbox, scraped every 5 s by a real
 * Prometheus (Debian's `prometheus`, bound to 127.0.0.1) with examples/prometheus/payrecon-alerts.yml
 * loaded; the provider is stopped, then the database, and the time until each alert fires (and
 * resolves) is printed. Exits 1 when an alert misses its bound.
 *
 *   node --import tsx bench/fault-run.ts [--orders 300] [--outage 240]
 *
 * The provider and the database are each reached through a TCP proxy this script cuts (every
 * connection reset, new ones refused: what a stopped server looks like to a client), so the shared
 * Postgres the database lives on is never stopped. BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres) names that server; a database h40_fault_<hex> is
 * created there and dropped at the end. PROMETHEUS (default `prometheus`) names the binary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { silentLogger } from '../src/log/logger.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { cuttableProxy } from '../test/helpers/cuttable-proxy.ts';
import { CHECK_AT_ONCE } from './lib/check-at-once.ts';
import { createScratchDatabase } from './lib/scratch-database.ts';
import { loadAverages } from './lib/record.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin/payrecon.mjs');
const RULES = path.join(ROOT, 'examples/prometheus/payrecon-alerts.yml');
const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PROMETHEUS = process.env.PROMETHEUS ?? 'prometheus';
const SCRAPE_S = 5;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}
const ORDERS = flag('orders', 300);
/** How long each fault lasts at most: past the slowest bound, so a late alert is measured, not cut short. */
const OUTAGE_S = flag('outage', 240);

const log = (line: string) => process.stderr.write(`[fault-run ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function poll<T>(what: string, check: () => Promise<T | undefined>, timeoutS: number): Promise<T> {
  const until = Date.now() + timeoutS * 1000;
  while (Date.now() < until) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    await sleep(1000);
  }
  throw new Error(`${what}: not within ${timeoutS} s`);
}

interface PromAlert {
  labels: { alertname: string };
  state: 'pending' | 'firing';
}

async function main(): Promise<number> {
  const scratch = await createScratchDatabase(SERVER, 'h40_fault');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-fault-run-'));
  const children: ChildProcess[] = [];
  const sandbox = await startSandbox({ merchants: [{ id: 'demo-merchant', secret: 'demo-secret' }] });
  const dbTarget = new URL(scratch.url);
  const dbProxy = cuttableProxy({ host: dbTarget.hostname, port: Number(dbTarget.port || 5432) });
  const providerTarget = new URL(sandbox.url);
  const providerProxy = cuttableProxy({ host: providerTarget.hostname, port: Number(providerTarget.port) });
  try {
    const env = {
      ...CHECK_AT_ONCE,
      DATABASE_URL: scratch.url,
      PROVIDER_BASE_URL: sandbox.url,
      PROVIDER_MERCHANT_ID: 'demo-merchant',
      PROVIDER_SECRET: 'demo-secret',
    };
    const db = await openDatabase(loadConfig(env), { applicationName: 'fault-run-seed' });
    await migrate(db);
    const client = await createProviderClient(loadConfig(env), { logger: silentLogger });
    await seedMerchant(db.knex, client, { payments: ORDERS, payouts: Math.round(ORDERS / 2), seed: 40 });
    await client.close();
    await db.close();
    // Each fetch takes a while, so a reconcile is in flight when the provider stops.
    await new SandboxControl(sandbox.url).setLatency(50);

    const viaDb = new URL(scratch.url);
    viaDb.hostname = '127.0.0.1';
    viaDb.port = String(await dbProxy.listen());
    const viaProvider = `http://127.0.0.1:${await providerProxy.listen()}`;
    const opsPort = await freePort();
    const promPort = await freePort();

    const scheduler = spawn(process.execPath, [CLI, 'schedule'], {
      env: {
        PATH: process.env.PATH ?? '',
        ...env,
        DATABASE_URL: viaDb.toString(),
        DATABASE_QUERY_TIMEOUT_MS: '5000',
        PROVIDER_BASE_URL: viaProvider,
        PROVIDER_TIMEOUT_MS: '5000',
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        SCHEDULE_HTTP_PORT: String(opsPort),
        SCHEDULE_RECONCILE: '* * * * *',
        SCHEDULE_SNAPSHOT: 'off',
        SCHEDULE_BANK_CODES: 'off',
        SCHEDULE_DAILY: 'off',
        SCHEDULE_PRUNE: 'off',
      },
      stdio: ['ignore', 'ignore', fs.openSync(path.join(work, 'scheduler.log'), 'w')],
    });
    children.push(scheduler);

    fs.writeFileSync(
      path.join(work, 'prometheus.yml'),
      [
        'global:',
        `  scrape_interval: ${SCRAPE_S}s`,
        `  evaluation_interval: ${SCRAPE_S}s`,
        'rule_files:',
        `  - ${RULES}`,
        'scrape_configs:',
        '  - job_name: payrecon-schedule',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${opsPort}']`,
        '',
      ].join('\n'),
    );
    const prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(work, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(work, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: ['ignore', 'ignore', fs.openSync(path.join(work, 'prometheus.log'), 'w')] },
    );
    children.push(prometheus);
    const prom = `http://127.0.0.1:${promPort}`;
    const query = async (q: string): Promise<number | undefined> => {
      const body = (await (await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as {
        data: { result: { value: [number, string] }[] };
      };
      return body.data.result.length ? Number(body.data.result[0].value[1]) : undefined;
    };
    const firing = async (): Promise<Set<string>> => {
      const body = (await (await fetch(`${prom}/api/v1/alerts`)).json()) as { data: { alerts: PromAlert[] } };
      return new Set(body.data.alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname));
    };

    log(`scheduler ops :${opsPort}, prometheus :${promPort}, ${ORDERS} pay-ins, work dir ${work}`);
    await poll('payrecon_ready 1 in Prometheus', async () => ((await query('payrecon_ready')) === 1 ? true : undefined), 180);
    await poll('provider answering', async () => ((await query('max(payrecon_provider_reachable)')) === 1 ? true : undefined), 180);
    const quiet = await firing();
    log(`healthy; firing before the faults: ${[...quiet].join(', ') || 'none'}`);

    const results: { fault: string; alert: string; bound: number; fired: number | null; resolved: number | null; also: string[] }[] = [];
    const fault = async (name: string, alert: string, boundS: number, cut: () => void, restore: () => void) => {
      cut();
      const t0 = Date.now();
      log(`${name}: cut`);
      // Every other alert that starts firing during the outage, with its time: what an operator would see.
      const also = new Map<string, number>();
      let fired: number | null = null;
      try {
        await poll(
          `${alert} firing`,
          async () => {
            const now = await firing();
            for (const a of now) if (!quiet.has(a) && a !== alert && !also.has(a)) also.set(a, (Date.now() - t0) / 1000);
            return now.has(alert) ? true : undefined;
          },
          OUTAGE_S,
        );
        fired = (Date.now() - t0) / 1000;
        log(`${name}: ${alert} firing after ${fired.toFixed(0)} s`);
      } catch (err) {
        log(`${name}: ${(err as Error).message}`);
      }
      restore();
      const t1 = Date.now();
      let resolved: number | null = null;
      try {
        await poll(`${alert} resolved`, async () => (!(await firing()).has(alert) ? true : undefined), 300);
        resolved = (Date.now() - t1) / 1000;
        log(`${name}: restored; ${alert} resolved after ${resolved.toFixed(0)} s`);
      } catch (err) {
        log(`${name}: ${(err as Error).message}`);
      }
      results.push({ fault: name, alert, bound: boundS, fired, resolved, also: [...also].map(([a, s]) => `${a} ${s.toFixed(0)} s`) });
    };

    await fault('provider stopped', 'PayreconProviderDown', 300, providerProxy.cut, providerProxy.restore);
    await poll('provider answering again', async () => ((await query('max(payrecon_provider_reachable)')) === 1 ? true : undefined), 180);
    await fault('database stopped', 'PayreconDatabaseUnreachable', 120, dbProxy.cut, dbProxy.restore);

    const [l1, l5, l15] = loadAverages();
    process.stdout.write(
      `\nfault run ${new Date().toISOString()}, load ${l1} ${l5} ${l15}, ${ORDERS} pay-ins, scrape and evaluation every ${SCRAPE_S} s\n`,
    );
    process.stdout.write(
      '| fault | alert | bound (s) | fired after (s) | resolved after restore (s) | also firing (s after the fault) |\n',
    );
    process.stdout.write('| --- | --- | --- | --- | --- | --- |\n');
    for (const r of results) {
      const cells = [r.fault, r.alert, r.bound, r.fired?.toFixed(0) ?? 'no', r.resolved?.toFixed(0) ?? 'no', r.also.join(', ') || 'none'];
      process.stdout.write(`| ${cells.join(' | ')} |\n`);
    }
    return results.every((r) => r.fired !== null && r.fired <= r.bound) ? 0 : 1;
  } finally {
    for (const c of children.reverse()) {
      c.kill('SIGTERM');
      await new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)));
    }
    await dbProxy.close();
    await providerProxy.close();
    await sandbox.close();
    await scratch.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
