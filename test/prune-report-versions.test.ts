import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { parse as losslessParse, isLosslessNumber } from 'lossless-json';
import { silentLogger } from '../src/log/logger.ts';
import { runPrune, type PruneOptions } from '../src/prune/run-prune.ts';
import { writeReports, type WriteReportsResult } from '../src/report/write-reports.ts';
import { setCurrent } from '../src/report/version-dir.ts';
import { createMailer } from '../src/notify/mailer.ts';
import { sendReportEmail } from '../src/report/email/send.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { runCli } from './helpers/cli.ts';
import { DAY, daysAgo, exists, world } from './helpers/prune-world.ts';

/**
 * The retention of report versions on disk (`payrecon prune`): which superseded versions it removes or
 * archives, each version it must keep named as a test of its own, and what the console and a resend say
 * about a removed version.
 */
const NOW = new Date();
const CUTOFF = daysAgo(NOW, 400);

let t: TestDatabase;
let reportDir: string;
let archiveDir: string;
let app: FastifyInstance;
const clock = new FixedClock(NOW);

beforeAll(async () => {
  reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-version-retention-'));
  archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-version-archive-'));
  t = await createTestDatabase('prune_versions', {
    engine: 'postgres',
    env: {
      REPORT_DIR: reportDir,
      PROVIDER_SECRET: 'version-retention-test-secret',
      PROVIDER_BASE_URL: 'http://127.0.0.1:9',
      SMTP_URL: 'smtp://127.0.0.1:9',
      REPORT_EMAIL_FROM: 'payrecon@merchant.example',
      REPORT_EMAIL_TO: 'accounting@merchant.example',
    },
  });
  await addUsers(t, clock, { fiona: 'finance' });
  app = await buildTestConsole(t, clock);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await t?.drop();
  for (const d of [reportDir, archiveDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

const prune = (over: Partial<PruneOptions> = {}) =>
  runPrune({ db: t.db, logger: silentLogger, cutoff: CUTOFF, dryRun: false, batchSize: 5000, lockTimeoutMs: 2000, reportDir, ...over });

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let nextDay = 0;
/** A business day of its own for each test, long past the retention (500 days ago and before). */
const oldDay = () =>
  daysAgo(NOW, 500 + nextDay++)
    .toISOString()
    .slice(0, 10);

/** An order created on the day with a check, so each version of the day records it. */
async function orderOn(date: string) {
  const w = world(t.db.knex);
  const at = new Date(`${date}T10:00:00Z`);
  const order = await w.order('payment', at);
  await w.check(order, new Date(at.getTime() + 60_000));
  return { w, order, at };
}

/** n versions of the day, written the next day a minute apart (each later one supersedes the earlier). */
async function versions(date: string, n: number, start = new Date(Date.parse(date) + DAY + 3_600_000)): Promise<WriteReportsResult[]> {
  const out: WriteReportsResult[] = [];
  for (let i = 0; i < n; i++)
    out.push(await writeReports(t.db, { date, timezone: 'UTC', reportDir, now: new Date(start.getTime() + i * 60_000), force: true }));
  return out;
}

async function versionRow(id: string) {
  const res = (await t.db.knex.raw(
    `SELECT removed_at, archived_to, orders_recorded, (SELECT count(*)::int FROM report_version_orders r WHERE r.version_id = v.id) AS orders
       FROM report_versions v WHERE id = ?::bigint`,
    [id],
  )) as { rows: Array<{ removed_at: Date | null; archived_to: string | null; orders_recorded: boolean; orders: number }> };
  return res.rows[0];
}

/** Whether the version's folder and its recorded orders are all still there. */
async function kept(v: WriteReportsResult): Promise<boolean> {
  const row = await versionRow(v.record.id);
  return fs.existsSync(v.directory) && row.removed_at === null && row.orders > 0;
}

describe.skipIf(requiresServer('prune runs on Postgres'))('payrecon prune: report versions on disk', () => {
  it('removes a superseded version past the retention with its recorded orders; keeps the current one', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1, v2] = await versions(date, 2);
    expect((await versionRow(v1.record.id)).orders).toBe(1);
    const r = await prune();
    expect(r.reportVersions.map((v) => `${v.businessDate} v${v.version}`)).toContain(`${date} v1`);
    expect(fs.existsSync(v1.directory)).toBe(false);
    const row = await versionRow(v1.record.id);
    expect(row).toMatchObject({ archived_to: null, orders_recorded: false, orders: 0 });
    expect(row.removed_at).not.toBeNull();
    expect(await kept(v2)).toBe(true);
  });

  it('keeps the current version of a day however old, and a superseded one within the retention', async () => {
    const date = oldDay();
    await orderOn(date);
    const [only] = await versions(date, 1);
    const recentDay = daysAgo(NOW, 20).toISOString().slice(0, 10);
    await orderOn(recentDay);
    const [recent1] = await versions(recentDay, 2, daysAgo(NOW, 19));
    await prune();
    expect(await kept(only)).toBe(true);
    expect(await kept(recent1)).toBe(true);
  });

  it('keeps a superseded version whose e-mail is still to be sent', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1] = await versions(date, 2);
    await t.db.knex.raw(`UPDATE report_versions SET email_status = 'pending' WHERE id = ?::bigint`, [v1.record.id]);
    await prune();
    expect(await kept(v1)).toBe(true);
  });

  it('keeps a superseded version of a day with an open case on one of its orders', async () => {
    const date = oldDay();
    const { w, order, at } = await orderOn(date);
    await w.caseOf(order, at, 'open');
    const [v1] = await versions(date, 2);
    await prune();
    expect(await kept(v1)).toBe(true);
  });

  it('keeps a superseded version of a day with an acknowledged case', async () => {
    const date = oldDay();
    const { w, order, at } = await orderOn(date);
    await w.caseOf(order, at, 'acknowledged');
    const [v1] = await versions(date, 2);
    await prune();
    expect(await kept(v1)).toBe(true);
  });

  it('keeps a superseded version of a day with an open case about no order (a balance drift in the day)', async () => {
    const date = oldDay();
    await orderOn(date);
    const at = new Date(`${date}T18:00:00Z`);
    await t.db.knex.raw(
      `INSERT INTO cases (subject, code, currency, window_start, window_end, occurred_at, state, created_at, opened_at, state_changed_at, last_seen_at)
       VALUES (?, 'BALANCE_DRIFT', 'INR', ?, ?, ?, 'open', ?, ?, ?, ?)`,
      [`INR:${date}`, at, at, at, at, at, at, at],
    );
    const [v1] = await versions(date, 2);
    await prune();
    expect(await kept(v1)).toBe(true);
  });

  it('removes a superseded version once its case is resolved', async () => {
    const date = oldDay();
    const { w, order, at } = await orderOn(date);
    await w.caseOf(order, at, 'resolved');
    const [v1] = await versions(date, 2);
    await prune();
    expect(fs.existsSync(v1.directory)).toBe(false);
  });

  it('keeps the version CURRENT names in the day folder, though the database recorded a newer one', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1, v2] = await versions(date, 3);
    await setCurrent(path.dirname(v1.directory), 2);
    await prune();
    expect(await kept(v2)).toBe(true);
    expect(fs.existsSync(v1.directory)).toBe(false);
  });

  it('keeps the newest version that recorded its orders (later reports compare with it), when newer ones did not', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1, v2] = await versions(date, 2);
    await t.db.knex.raw(`UPDATE report_versions SET orders_recorded = false WHERE id = ?::bigint`, [v2.record.id]);
    await prune();
    expect(await kept(v1)).toBe(true);
  });

  it('frees the checks only a removed version kept: the same prune removes them', async () => {
    const date = oldDay();
    const { w, order, at } = await orderOn(date);
    const [v1] = await versions(date, 1);
    const built = (await t.db.knex.raw(`SELECT max(id)::text AS id FROM recon_items WHERE direction = 'payment' AND order_id = ?::bigint`, [
      order.id,
    ])) as { rows: Array<{ id: string }> };
    await w.check(order, new Date(at.getTime() + 2 * DAY));
    await versions(date, 1, new Date(at.getTime() + 3 * DAY));
    await prune();
    expect(fs.existsSync(v1.directory)).toBe(false);
    expect(await exists(t.db.knex, 'recon_items', built.rows[0].id)).toBe(false);
  });

  it('finishes a removal a prune left half done: the folder and recorded orders of a version marked removed go', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1] = await versions(date, 2);
    // As a prune stopped right after marking it: row marked, folder and recorded orders still there.
    await t.db.knex.raw(`UPDATE report_versions SET removed_at = now(), orders_recorded = false WHERE id = ?::bigint`, [v1.record.id]);
    await prune();
    expect(fs.existsSync(v1.directory)).toBe(false);
    expect((await versionRow(v1.record.id)).orders).toBe(0);
  });

  it('archives a removed version first: one zip of its files, its row and its recorded orders, read back exactly', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1] = await versions(date, 2);
    const onDisk = fs.readdirSync(v1.directory).sort();
    const r = await prune({ archiveDir });
    const file = path.join(archiveDir, 'report_versions', date.slice(0, 7), `${date}-v1.zip`);
    expect(r.archiveFiles).toContain(file);
    expect((await versionRow(v1.record.id)).archived_to).toBe(file);
    const listed = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listed).toEqual([...onDisk, 'report_version.json', 'report_version_orders.jsonl'].map((n) => `${date}/v1/${n}`).sort());
    const unzip = (name: string) => execFileSync('unzip', ['-p', file, `${date}/v1/${name}`]);
    // Every file comes back with the bytes the version's manifest recorded.
    const manifest = JSON.parse(unzip('manifest.json').toString('utf8')) as { version: number; files: Record<string, { sha256: string }> };
    expect(manifest.version).toBe(1);
    for (const [name, f] of Object.entries(manifest.files)) expect(sha256(unzip(name)), name).toBe(f.sha256);
    const row = losslessParse(unzip('report_version.json').toString('utf8')) as Record<string, unknown>;
    expect([String(row.id), row.version, row.business_date]).toEqual([v1.record.id, expect.anything(), date]);
    expect(isLosslessNumber(row.id)).toBe(true);
    const orders = unzip('report_version_orders.jsonl')
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => losslessParse(l) as Record<string, unknown>);
    expect(orders.map((o) => [o.direction, o.verdict])).toEqual([['payment', 'matched']]);
  });

  it('--dry-run lists the versions it would remove and changes nothing; --json counts them', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1] = await versions(date, 2);
    const env = { DATABASE_URL: t.url!, LOG_LEVEL: 'warn', RETENTION_DAYS: '400', REPORT_DIR: reportDir };
    const text = await runCli(['prune', '--dry-run'], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${date} v1  ${v1.directory}`);
    const dry = await runCli(['prune', '--dry-run', '--json'], env);
    expect(dry.code, dry.stderr).toBe(0);
    const counted = JSON.parse(dry.stdout) as { tables: Record<string, number>; reportVersions: Array<{ businessDate: string }> };
    expect(counted.reportVersions.some((v) => v.businessDate === date)).toBe(true);
    expect(counted.tables.report_versions).toBe(counted.reportVersions.length);
    expect(counted.tables.report_version_orders).toBeGreaterThan(0);
    expect(await kept(v1)).toBe(true);

    const real = await runCli(['prune', '--json'], env);
    expect(real.code, real.stderr).toBe(0);
    const removed = JSON.parse(real.stdout) as { tables: Record<string, number> };
    expect([removed.tables.report_versions, removed.tables.report_version_orders]).toEqual([
      counted.tables.report_versions,
      counted.tables.report_version_orders,
    ]);
    expect(fs.existsSync(v1.directory)).toBe(false);
  });

  it('the day page and a download say the version was removed (and where it was archived) instead of failing', async () => {
    const date = oldDay();
    await orderOn(date);
    const [v1, v2] = await versions(date, 2);
    await prune({ archiveDir, now: () => new Date('2026-11-26T04:00:00Z') });
    const agent = new Agent(app);
    await agent.login('fiona');
    const day = await agent.get(`/days/${date}`);
    expect(day.statusCode).toBe(200);
    const file = path.join(archiveDir, 'report_versions', date.slice(0, 7), `${date}-v1.zip`);
    expect(day.body).toContain(`Version 1 of ${date} was removed by retention on 2026-11-26; it was archived in ${file}.`);
    expect(day.body).toContain(`/reports/${v2.record.id}/files/items.csv`);
    const download = await agent.get(`/reports/${v1.record.id}/files/items.csv`);
    expect(download.statusCode).toBe(410);
    expect(download.body).toContain(`version 1 of ${date} was removed by retention on 2026-11-26; it was archived in ${file}.`);
  });

  it('a resend of a removed version says it was removed by retention instead of failing', async () => {
    const date = oldDay();
    await orderOn(date);
    await versions(date, 2);
    await prune({ now: () => new Date('2026-11-26T04:00:00Z') });
    const mailer = createMailer(t.config);
    try {
      const r = await sendReportEmail(t.db, mailer, { businessDate: date, version: 1, resend: true, now: NOW });
      expect(r).toMatchObject({ status: 'removed', message: `version 1 of ${date} was removed by retention on 2026-11-26` });
    } finally {
      mailer.close();
    }
  });
});
