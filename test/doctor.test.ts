// `payrecon doctor` against a good setup (real Postgres, the sandbox, a real SMTP server, an alert
// endpoint, a writable report directory), then with each piece broken alone.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { freePort, MailSink } from './helpers/mail-sink.ts';
import { runCli } from './helpers/cli.ts';
import { runDoctor, type DoctorReport } from '../src/doctor/run-doctor.ts';

const statuses = (r: DoctorReport) => Object.fromEntries(r.checks.map((c) => [c.name, c.status]));
const ALL_OK = {
  configuration: 'ok',
  database: 'ok',
  'merchant refs': 'ok',
  provider: 'ok',
  smtp: 'ok',
  'alert webhook': 'ok',
  alerting: 'ok',
  'report directory': 'ok',
  // SCHEDULE_MODE=inprocess (the default): no queue to check (test/worker-queue.test.ts checks one).
  'worker queue': 'skipped',
};

describe.skipIf(requiresServer('doctor connects to a real Postgres'))('payrecon doctor', () => {
  let world: World;
  let good: Record<string, string>;
  const sink = new MailSink();
  const hook = http.createServer((_req, res) => res.writeHead(405).end());
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-doctor-'));

  beforeAll(async () => {
    world = await createWorld('doctor');
    const smtpPort = await freePort();
    await sink.listen(smtpPort);
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    good = {
      ...world.env,
      SMTP_URL: `smtp://mailer:s3cret-smtp-pw@127.0.0.1:${smtpPort}`,
      ALERT_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/payrecon`,
      REPORT_DIR: reportDir,
      NOTIFY_TIMEOUT_MS: '2000',
    };
  });
  afterAll(async () => {
    await sink.close();
    await new Promise((r) => hook.close(r));
    await world?.close();
    fs.rmSync(reportDir, { recursive: true, force: true });
  });

  it('a good setup: every check ok, exit 0; --json prints one object', async () => {
    const report = await runDoctor(good);
    expect(statuses(report)).toEqual(ALL_OK);
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.name === 'provider')!.detail).toMatch(/^credentials accepted \(balance INR\)/);
    expect(sink.received).toHaveLength(0);
    const cli = await runCli(['doctor', '--json'], good);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ ok: true });
  });

  it('what is not configured is skipped, not failed', async () => {
    const { SMTP_URL: _s, ALERT_WEBHOOK_URL: _a, ...env } = good;
    const report = await runDoctor(env);
    expect(statuses(report)).toEqual({ ...ALL_OK, smtp: 'skipped', 'alert webhook': 'skipped' });
    expect(report.checks.find((c) => c.name === 'smtp')!.detail).toBe('skipped (not configured: SMTP_URL)');
    expect(report.ok).toBe(true);
  });

  const broken: Array<[string, () => Record<string, string>, string]> = [
    ['database', () => ({ DATABASE_URL: world.t.url!.replace(/:\d+\//, ':1/') }), 'check DATABASE_URL'],
    ['provider', () => ({ PROVIDER_SECRET: 'not-the-secret' }), 'check PROVIDER_BASE_URL, PROVIDER_MERCHANT_ID'],
    ['smtp', () => ({ SMTP_URL: good.SMTP_URL.replace(/:\d+$/, ':1') }), 'check SMTP_URL'],
    ['alert webhook', () => ({ ALERT_WEBHOOK_URL: 'http://127.0.0.1:1/hook' }), 'check ALERT_WEBHOOK_URL'],
    ['report directory', () => ({ REPORT_DIR: path.join(reportDir, 'a-file') }), 'set REPORT_DIR'],
  ];
  it.each(broken)('%s broken alone: only it fails, with its fix; exit 2', async (name, change, fix) => {
    fs.writeFileSync(path.join(reportDir, 'a-file'), 'not a directory');
    const report = await runDoctor({ ...good, ...change() });
    // With no database, whether alerting works and where a merchantRef is unique cannot be read: skipped, not failed twice.
    const unread = name === 'database' ? { alerting: 'skipped', 'merchant refs': 'skipped' } : {};
    expect(statuses(report)).toEqual({ ...ALL_OK, ...unread, [name]: 'failed' });
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === name)!.fix).toContain(fix);
    // Never a password in what it prints.
    expect(JSON.stringify(report)).not.toMatch(/s3cret-smtp-pw|not-the-secret/);
  });

  it('checks each account of ACCOUNTS_FILE, naming the one the provider refuses', async () => {
    const file = path.join(reportDir, 'accounts.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          { id: 'main', merchantId: 'demo-merchant', secret: { env: 'MAIN_SECRET' } },
          { id: 'stranger', merchantId: 'not-at-this-provider', secret: { env: 'MAIN_SECRET' } },
        ],
      }),
    );
    const report = await runDoctor({ ...good, ACCOUNTS_FILE: file, MAIN_SECRET: 'demo-secret' });
    const { provider: _p, ...others } = ALL_OK;
    expect(statuses(report)).toEqual({ ...others, 'provider main': 'ok', 'provider stranger': 'failed' });
    expect(report.checks.find((c) => c.name === 'provider stranger')!.fix).toContain(
      "check account stranger's baseUrl, merchantId and secret",
    );
    expect(JSON.stringify(report)).not.toContain('demo-secret');
  });

  it('a report directory marked by another database fails alone, naming both; its own marker is fine', async () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-doctor-shared-'));
    try {
      const marker = path.join(shared, '.payrecon-database.json');
      fs.writeFileSync(marker, JSON.stringify({ installationId: '00000000-0000-4000-8000-000000000000', database: 'another database' }));
      const report = await runDoctor({ ...good, REPORT_DIR: shared });
      expect(statuses(report)).toEqual({ ...ALL_OK, 'report directory': 'failed' });
      const check = report.checks.find((c) => c.name === 'report directory')!;
      expect(check.detail).toContain('another database');
      expect(check.fix).toContain("set REPORT_DIR to a folder of this database's own");
      const own = await world.t.db.knex.raw(`SELECT id::text AS id FROM installation`);
      fs.writeFileSync(
        marker,
        JSON.stringify({ installationId: (own as { rows: Array<{ id: string }> }).rows[0].id, database: 'this one' }),
      );
      expect(statuses(await runDoctor({ ...good, REPORT_DIR: shared }))).toEqual(ALL_OK);
    } finally {
      fs.rmSync(shared, { recursive: true, force: true });
    }
  });

  it('a missing database: the fix creates it; an unmigrated one: the report folder check says so, not "did not answer"', async () => {
    const missing = new URL(world.env.DATABASE_URL);
    missing.pathname = '/h40_doctor_no_such_database';
    const gone = await runDoctor({ ...good, DATABASE_URL: missing.toString() });
    const db = gone.checks.find((c) => c.name === 'database')!;
    expect(db.status).toBe('failed');
    expect(db.fix).toMatch(/^create the database: `createdb h40_doctor_no_such_database`.*then `payrecon migrate`$/);

    const marked = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-doctor-unmigrated-'));
    try {
      fs.writeFileSync(path.join(marked, '.payrecon-database.json'), JSON.stringify({ installationId: 'x', database: 'elsewhere' }));
      const report = await runDoctor({ ...good, DATABASE_SCHEMA: 'h40_not_migrated', REPORT_DIR: marked });
      expect(report.checks.find((c) => c.name === 'database')!.fix).toBe('run `payrecon migrate`');
      expect(report.checks.find((c) => c.name === 'report directory')!.detail).toBe(
        `${marked} writable; its owner not compared (the database is not migrated)`,
      );
    } finally {
      fs.rmSync(marked, { recursive: true, force: true });
    }
  });

  it('a bad configuration: the variable named, nothing else checked, exit 2 from the CLI', async () => {
    const report = await runDoctor({ ...good, RECON_CONCURRENCY: 'lots' });
    expect(report.checks).toHaveLength(1);
    expect(report.checks[0]).toMatchObject({ name: 'configuration', status: 'failed' });
    expect(report.checks[0].detail).toContain('RECON_CONCURRENCY');
    const cli = await runCli(['doctor'], { ...good, RECON_CONCURRENCY: 'lots' });
    expect(cli.code).toBe(2);
    expect(cli.stdout).toContain('[FAIL] configuration: RECON_CONCURRENCY');
  });
});
