// Health, readiness and metrics of the long-running processes, scraped over real HTTP against real
// Postgres and the sandbox: every family is exposed from the start, and each moves after its event.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { waitFor } from './helpers/cli.ts';
import { cuttableProxy } from './helpers/cuttable-proxy.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { silentLogger } from '../src/log/logger.ts';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';
import { PayreconMetrics } from '../src/metrics/metrics.ts';
import { serveOps } from '../src/metrics/serve-ops.ts';
import type { OpsServer } from '../src/metrics/ops-server.ts';
import { jobRunners } from '../src/services/schedule-runners.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { serveWebhooksJob } from '../src/services/webhook.ts';

const FAMILIES = [
  'payrecon_job_runs_total',
  'payrecon_job_last_success_timestamp_seconds',
  'payrecon_orders_checked_total',
  'payrecon_provider_requests_total',
  'payrecon_provider_request_duration_seconds',
  'payrecon_open_cases',
  'payrecon_balance_drift',
  'payrecon_report_emails_pending',
  'payrecon_webhook_notifications_total',
  'payrecon_ready',
  'payrecon_database_reachable',
  'payrecon_job_watched_since_timestamp_seconds',
  'process_cpu_user_seconds_total',
];

/** The value of one sample ("name{labels} value"), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
};

describe.skipIf(requiresServer('the metrics read a real Postgres; /readyz goes through a proxy to it'))('health and metrics', () => {
  let world: World;
  let metrics: PayreconMetrics;
  let ops: OpsServer;
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-ops-reports-'));

  beforeAll(async () => {
    world = await createWorld('ops_metrics', { env: { RECON_CONCURRENCY: '4', REPORT_DIR: reportDir } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 20, payouts: 10, seed: 3 });
    await world.control.advanceClock(2_000);
    metrics = new PayreconMetrics();
    ops = (await serveOps({ db: world.t.db, metrics, logger: silentLogger, host: '127.0.0.1', port: 0 }))!;
  });
  afterAll(async () => {
    await ops?.close();
    await world?.close();
    fs.rmSync(reportDir, { recursive: true, force: true });
  });

  it('exposes every family from the start, with zero samples for the label values known up front', async () => {
    const { status, text } = await get(`${ops.url}/metrics`);
    expect(status).toBe(200);
    for (const family of FAMILIES) expect(text, family).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
    expect(sample(text, 'payrecon_job_runs_total{payrecon_job="reconcile",outcome="success"}')).toBe(0);
    expect(sample(text, 'payrecon_orders_checked_total{direction="payment",verdict="mismatch"}')).toBe(0);
    expect(sample(text, 'payrecon_webhook_notifications_total{outcome="refused"}')).toBe(0);
    expect(sample(text, 'payrecon_report_emails_pending')).toBe(0);
    // No roll-forward checked yet: no drift sample at all, rather than a zero that claims one.
    expect(text).not.toMatch(/^payrecon_balance_drift\{/m);
    expect(sample(text, 'payrecon_ready')).toBe(1);
    expect(sample(text, 'payrecon_database_reachable')).toBe(1);
    // A job that never succeeded is still watched, from the install: a rule can see it overdue.
    const installed = sample(text, 'payrecon_job_watched_since_timestamp_seconds{payrecon_job="bank-codes"}');
    expect(installed).toBeGreaterThan(Date.now() / 1000 - 86_400);
    expect(sample(text, 'payrecon_job_last_success_timestamp_seconds{payrecon_job="bank-codes"}')).toBeUndefined();
    // No provider request yet: no reachability sample rather than a guess.
    expect(text).not.toMatch(/^payrecon_provider_reachable\{/m);
  });

  it('moves after a reconcile, a snapshot, a report and a webhook', async () => {
    const { config, t } = world;
    const runners = jobRunners({ config, db: t.db, metrics });
    const ctx = { scheduledFor: new Date(), reason: 'scheduled' as const, signal: new AbortController().signal, logger: silentLogger };
    expect((await runners.reconcile(ctx)).status).toBe('completed');
    expect((await runners.snapshot(ctx)).status).toBe('completed');
    expect((await runners.snapshot(ctx)).status).toBe('completed');
    const day = dayJobs({ config, logger: silentLogger, db: t.db, metrics });
    expect((await day.reportDay(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10))).exitCode).toBe(0);

    const stop = new AbortController();
    let receiver = '';
    const serving = serveWebhooksJob(
      { port: 0, stop: stop.signal, onListening: (s) => (receiver = s.url) },
      { config, db: t.db, logger: silentLogger, metrics },
    );
    await waitFor(async () => receiver !== '');
    const refused = await fetch(`${receiver}/webhooks/payment`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    stop.abort();
    expect(await serving).toBe(0);

    const { text } = await get(`${ops.url}/metrics`);
    expect(sample(text, 'payrecon_job_runs_total{payrecon_job="reconcile",outcome="success"}')).toBe(1);
    expect(sample(text, 'payrecon_job_runs_total{payrecon_job="snapshot",outcome="success"}')).toBe(2);
    expect(sample(text, 'payrecon_job_runs_total{payrecon_job="report",outcome="success"}')).toBe(1);
    const checked = text.split('\n').filter((l) => l.startsWith('payrecon_orders_checked_total{'));
    expect(checked.reduce((n, l) => n + Number(l.split(' ')[1]), 0)).toBeGreaterThanOrEqual(30);
    expect(sample(text, 'payrecon_provider_requests_total{operation="paymentFetch",status="200"}')).toBeGreaterThan(0);
    expect(sample(text, 'payrecon_provider_requests_total{operation="balance",status="200"}')).toBeGreaterThan(0);
    expect(sample(text, 'payrecon_provider_request_duration_seconds_count{operation="paymentFetch"}')).toBeGreaterThan(0);
    expect(sample(text, 'payrecon_webhook_notifications_total{outcome="refused"}')).toBe(1);
    // One sample: the latest request, whichever operation it was.
    expect(text.split('\n').filter((l) => l.startsWith('payrecon_provider_reachable{'))).toEqual([expect.stringMatching(/ 1$/)]);
    const now = Date.now() / 1000;
    for (const job of ['reconcile', 'snapshot']) {
      expect(now - sample(text, `payrecon_job_last_success_timestamp_seconds{payrecon_job="${job}"}`)!).toBeLessThan(600);
    }
    // Two snapshots make one roll-forward check per currency: its drift is reported, zero in a clean world.
    for (const currency of config.RECON_CURRENCIES) expect(sample(text, `payrecon_balance_drift{currency="${currency}"}`)).toBe(0);
  });

  it('counts open cases by code and currency, read from the database at scrape', async () => {
    const { knex } = world.t.db;
    const before = sample((await get(`${ops.url}/metrics`)).text, 'payrecon_open_cases{code="AMOUNT_MISMATCH",currency="INR"}') ?? 0;
    const at = new Date();
    await knex('cases').insert({
      subject: 'ops-test-case',
      code: 'AMOUNT_MISMATCH',
      currency: 'INR',
      state: 'open',
      occurred_at: at,
      created_at: at,
      opened_at: at,
      state_changed_at: at,
      last_seen_at: at,
    });
    const { text } = await get(`${ops.url}/metrics`);
    expect(sample(text, 'payrecon_open_cases{code="AMOUNT_MISMATCH",currency="INR"}')).toBe(before + 1);
    const oldest = sample(text, 'payrecon_open_cases_oldest_timestamp_seconds{code="AMOUNT_MISMATCH",currency="INR"}');
    expect(oldest).toBeLessThanOrEqual(at.getTime() / 1000);
  });

  it('/healthz is alive; /readyz is 503 with the reason while the database is down, and ready again after', async () => {
    const url = new URL(world.t.url!);
    const proxy = cuttableProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const port = await proxy.listen();
    url.hostname = '127.0.0.1';
    url.port = String(port);
    let db: Db | undefined;
    let server: OpsServer | undefined;
    try {
      db = await openDatabase(loadConfig({ ...world.env, DATABASE_URL: url.toString(), DATABASE_QUERY_TIMEOUT_MS: '1000' }));
      const own = new PayreconMetrics({ defaultMetrics: false });
      server = (await serveOps({ db, metrics: own, logger: silentLogger, host: '127.0.0.1', port: 0 }))!;
      expect(await get(`${server.url}/readyz`)).toEqual({ status: 200, text: 'ready\n' });
      const before = await get(`${server.url}/metrics`);

      proxy.cut();
      expect((await get(`${server.url}/healthz`)).status).toBe(200);
      const down = await get(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      expect(down.text).toMatch(/^not ready: database (unreachable|did not answer)/);
      // The scrape still answers: the database gauges keep their last values, the failure is counted.
      const stale = await get(`${server.url}/metrics`);
      expect(stale.status).toBe(200);
      expect(sample(stale.text, 'payrecon_report_emails_pending')).toBe(sample(before.text, 'payrecon_report_emails_pending'));
      expect(sample(stale.text, 'payrecon_metrics_database_errors_total')).toBeGreaterThan(0);
      // The outage as gauges, while this endpoint (and so `up`) still answers.
      expect(sample(stale.text, 'payrecon_database_reachable')).toBe(0);
      expect(sample(stale.text, 'payrecon_ready')).toBe(0);

      proxy.restore();
      await waitFor(async () => (await get(`${server!.url}/readyz`)).status === 200, 20_000, 200);
      await waitFor(async () => sample((await get(`${server!.url}/metrics`)).text, 'payrecon_ready') === 1, 20_000, 200);
    } finally {
      await server?.close();
      await db?.close();
      await proxy.close();
    }
  });

  it('says which migrations are pending when the database is not migrated', async () => {
    await world.t.db.knex('knex_migrations').where('name', 'like', '022_%').del();
    try {
      const ready = await get(`${ops.url}/readyz`);
      expect(ready).toEqual({ status: 503, text: 'not ready: database not migrated: 1 pending (run payrecon migrate)\n' });
    } finally {
      await world.t.db.knex('knex_migrations').insert({ name: '022_report_speed.sql', batch: 1, migration_time: new Date() });
    }
  });
});
