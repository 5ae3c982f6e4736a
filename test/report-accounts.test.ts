import fs from 'node:fs';
import { Decimal } from 'decimal.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config } from '../src/config/config.ts';
import { type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { reportJob } from '../src/services/report.ts';
import { ledgerPostingsJob, ledgerTrialBalanceJob } from '../src/services/ledger.ts';
import { snapshotJob } from '../src/services/snapshot.ts';
import { silentLogger } from '../src/log/logger.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { MailSink, freePort } from './helpers/mail-sink.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { pruneReportVersions } from '../src/prune/prune-versions.ts';
import { reportDeliveryByVersion } from '../src/db/deliveries.ts';
import { sendReportEmail } from '../src/report/email/send.ts';
import { createMailer } from '../src/notify/mailer.ts';
import { serveConsole } from '../src/console/serve.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { findRerun } from '../src/db/console-reruns.ts';
import { waitFor } from './helpers/cli.ts';
import { seedAccountOrders, startTwoAccounts, type TwoAccounts } from './helpers/two-accounts.ts';

// Two provider accounts against one sandbox over HTTP: `report --account ID` writes that account's
// report only (its orders, checks, snapshots and journal, under REPORT_DIR/<id>/<date>/vN, numbered per
// account, with its chart of accounts) and e-mails it to that account's recipients.

const IDS = ['in-main', 'ng-brand'] as const;
const WALLET_CODE = { 'in-main': '5101', 'ng-brand': '5202' } as const;

describe('reports of one account among several', () => {
  let t: TestDatabase;
  let config: Config;
  let accounts: TwoAccounts;
  let reportDir: string;
  let sink: MailSink;
  const orders: Record<string, SeededOrder[]> = {};
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    t = await createTestDatabase('report_accounts');
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-report-accounts-'));
    const port = await freePort();
    sink = new MailSink();
    await sink.listen(port);
    accounts = await startTwoAccounts(t, {
      env: {
        REPORT_DIR: reportDir,
        REPORT_TIMEZONE: 'UTC',
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        REPORT_EMAIL_FROM: 'payrecon@merchant.example',
        // ng-brand lists no recipients of its own: its reports go here.
        REPORT_EMAIL_TO: 'group-finance@merchant.example',
      },
      accounts: {
        'in-main': {
          displayName: 'India main',
          reportRecipients: ['india-finance@merchant.example'],
          journalAccounts: { wallet: { code: WALLET_CODE['in-main'], name: 'India wallet' } },
        },
        'ng-brand': { journalAccounts: { wallet: { code: WALLET_CODE['ng-brand'], name: 'Nigeria wallet' } } },
      },
    });
    config = accounts.config;
    const context = { config, db: t.db, logger: silentLogger };
    // Each account: a balance before its orders, its orders reconciled, a balance after: a checked roll-forward.
    for (const id of IDS) await snapshotJob({ account: id }, context);
    for (const [id, seed] of [
      ['in-main', 1],
      ['ng-brand', 2],
    ] as const)
      orders[id] = await seedAccountOrders(t, config, id, seed);
    await new SandboxControl(accounts.sandbox.url).advanceClock(2_000);
    for (const id of IDS) await reconcileJob({ account: id, progress: false, date: today }, context);
    for (const id of IDS) await snapshotJob({ account: id }, context);
  });
  afterAll(async () => {
    await sink?.close().catch(() => undefined);
    await accounts?.close();
    await t?.drop();
    if (reportDir) fs.rmSync(reportDir, { recursive: true, force: true });
  });

  const context = () => ({ config, db: t.db, logger: silentLogger });
  // No PROVIDER_BASE_URL: each account names its own base URL, which is what a rerun of it needs.
  const consoleConfig = () => {
    expect(config.PROVIDER_BASE_URL).toBeUndefined();
    return config;
  };
  const read = (dir: string, name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  const refsIn = (csv: string) =>
    new Set(orders['in-main'].concat(orders['ng-brand']).flatMap((o) => (csv.includes(o.merchantRef) ? [o.merchantRef] : [])));

  it('refuses a report naming no account when several are configured, naming the ids', async () => {
    await expect(reportJob({ date: today }, context())).rejects.toThrow(
      '--account: required, 2 accounts are configured (in-main, ng-brand)',
    );
    await expect(reportJob({ date: today, account: 'nope' }, context())).rejects.toThrow('no such account; configured: in-main, ng-brand');
  });

  it("writes each account's report under REPORT_DIR/<id>/<date>/v1 with its own orders and chart of accounts, e-mailed to its recipients", async () => {
    for (const id of IDS) {
      const r = await reportJob({ date: today, account: id, email: true }, context());
      expect(r.exitCode).toBe(0);
      expect(r.report.version).toBe(1);
      expect(r.report.directory).toBe(path.join(reportDir, id, today, 'v1'));
      expect(r.emails.map((e) => e.status)).toEqual(['sent']);
      const dir = r.report.directory;
      // items.csv: every order of this account, none of the other's.
      expect([...refsIn(read(dir, 'items.csv'))].sort()).toEqual(orders[id].map((o) => o.merchantRef).sort());
      const manifest = JSON.parse(read(dir, 'manifest.json')) as { account?: { id: string } };
      expect(manifest.account?.id).toBe(id);
      expect(read(dir, 'report.html')).toContain(`, account ${id === 'in-main' ? 'India main (in-main)' : 'ng-brand'}</title>`);
      // The journal posts the wallet to the account's own code, never the other's.
      const journal = read(dir, 'journal.csv');
      const other = IDS.find((x) => x !== id)!;
      expect(journal).toContain(WALLET_CODE[id]);
      expect(journal).not.toContain(WALLET_CODE[other]);
      expect(fs.readFileSync(path.join(reportDir, id, today, 'CURRENT'), 'utf8')).toBe('v1\n');
    }
    // The single-account layout is not used: no REPORT_DIR/<date>/.
    expect(fs.existsSync(path.join(reportDir, today))).toBe(false);

    const mails = sink.received.map((m) => ({
      to: (Array.isArray(m.to) ? m.to : [m.to]).map((a) => a?.text).join(', '),
      subject: m.subject ?? '',
    }));
    expect(mails).toHaveLength(2);
    expect(mails[0].to).toBe('india-finance@merchant.example');
    expect(mails[0].subject).toMatch(new RegExp(`^payrecon India main ${today}: `));
    expect(mails[1].to).toBe('group-finance@merchant.example');
    expect(mails[1].subject).toMatch(new RegExp(`^payrecon ng-brand ${today}: `));
    // Two messages, not one de-duplicated: each Message-ID names its account.
    expect(new Set(sink.received.map((m) => m.messageId)).size).toBe(2);
  });

  it('numbers versions per account: a rerun of one account is its v2, the other keeps v1', async () => {
    const r = await reportJob({ date: today, account: 'in-main', force: true }, context());
    expect(r.report.version).toBe(2);
    expect(r.report.directory).toBe(path.join(reportDir, 'in-main', today, 'v2'));
    const rows = (await t.db.knex('report_versions').select('account_id', 'version').orderBy(['account_id', 'version'])) as Array<{
      account_id: string;
      version: number;
    }>;
    expect(rows.map((x) => `${x.account_id} v${x.version}`)).toEqual(['in-main v1', 'in-main v2', 'ng-brand v1']);
    const postings = (await t.db.knex('journal_postings').select('account_id').count('* as n').groupBy('account_id')) as Array<{
      account_id: string;
      n: string | number;
    }>;
    expect(Object.fromEntries(postings.map((p) => [p.account_id, Number(p.n)]))).toEqual({ 'in-main': 2, 'ng-brand': 1 });
    // The rerun's journal found the account's day posted by its own v1, not by the other account's.
    expect(read(r.report.directory, 'manifest.json')).not.toContain('ng-brand');
  });

  it("the ledger is one account's: its posting files, and its trial balance in its own chart of accounts", async () => {
    await expect(ledgerPostingsJob({}, context())).rejects.toThrow('--account: required, 2 accounts are configured (in-main, ng-brand)');
    const files = async (account: string) => (await ledgerPostingsJob({ account }, context())).map((p) => `${p.date}/v${p.version}`);
    expect(await files('in-main')).toEqual([`${today}/v1`, `${today}/v2`]);
    expect(await files('ng-brand')).toEqual([`${today}/v1`]);
    for (const id of IDS) {
      const tb = await ledgerTrialBalanceJob({ account: id, asOf: `${today}/v1` }, context());
      const other = IDS.find((x) => x !== id)!;
      const codes = tb.rows.map((r) => r.accountCode);
      expect(codes).toContain(WALLET_CODE[id]);
      expect(codes).not.toContain(WALLET_CODE[other]);
      // Each account's books balance on their own, per currency.
      const byCurrency = new Map<string, Decimal>();
      for (const r of tb.rows) byCurrency.set(r.currency, (byCurrency.get(r.currency) ?? new Decimal(0)).plus(r.balance));
      expect([...byCurrency.values()].every((sum) => sum.isZero())).toBe(true);
    }
  });

  it("retries a pending delivery with its own account's run, to its own recipients", async () => {
    // ng-brand's v1 left pending (its SMTP conversation failed): in-main's run leaves it to ng-brand's.
    await t.db.knex('report_versions').where({ account_id: 'ng-brand', version: 1 }).update({ email_status: 'pending' });
    const before = sink.received.length;
    const a = await reportJob({ date: today, account: 'in-main' }, context());
    expect(a.emails).toEqual([]);
    const b = await reportJob({ date: today, account: 'ng-brand' }, context());
    expect(b.emails.map((e) => `${e.status} v${e.version}`)).toEqual(['sent v1']);
    const sent = sink.received.slice(before);
    expect(sent).toHaveLength(1);
    expect((Array.isArray(sent[0].to) ? sent[0].to : [sent[0].to]).map((x) => x?.text)).toEqual(['group-finance@merchant.example']);
  });

  it('looks a version up by date and number within its account only', async () => {
    const found = await reportDeliveryByVersion(t.db.knex, 'ng-brand', today, 1);
    expect(found?.account_id).toBe('ng-brand');
    expect(await reportDeliveryByVersion(t.db.knex, 'ng-brand', today, 2)).toBeNull();
    expect((await reportDeliveryByVersion(t.db.knex, 'in-main', today, 2))?.account_id).toBe('in-main');
    // Unnamed: the single account's 'default' versions, never another account's v1.
    const mailer = createMailer(config);
    try {
      await expect(sendReportEmail(t.db, mailer, { businessDate: today, version: 1, now: new Date() })).rejects.toThrow(
        `no report version ${today} version 1`,
      );
    } finally {
      mailer.close();
    }
  });

  it('the console refuses a rerun naming no account, or one not configured, with several accounts, naming the ids', async () => {
    const clock = new FixedClock(new Date());
    await addUsers(t, clock, { fiona: 'finance' });
    const app = await buildTestConsole(t, clock, consoleConfig());
    try {
      const fiona = new Agent(app, '10.7.1.2');
      await fiona.login('fiona');
      const page = await fiona.get(`/days/${today}?account=ng-brand`);
      expect(page.body).toContain('<input type="hidden" name="account" value="ng-brand" />');
      for (const form of [{ date: today }, { date: today, account: 'nope' }] as Array<Record<string, string>>) {
        const res = await fiona.post('/reruns', form);
        expect(res.statusCode).toBe(400);
        expect(res.body).toContain('choose from in-main, ng-brand');
      }
      expect(Number((await t.db.knex('console_reruns').count('* as n'))[0].n)).toBe(0);
    } finally {
      await app.close();
    }
  });

  it("the console: a day's page is one account's, its files served from the account's folder; without an account, the consolidated day", async () => {
    const clock = new FixedClock(new Date());
    await addUsers(t, clock, { vera: 'viewer' });
    const app = await buildTestConsole(t, clock, config);
    try {
      const vera = new Agent(app, '10.7.1.1');
      await vera.login('vera');
      const page = await vera.get(`/days/${today}?account=in-main`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`Business day ${today}, account in-main`);
      const [link] = [...page.body.matchAll(/href="(\/reports\/\d+\/files\/items\.csv)"/g)].map((m) => m[1]);
      const items = await vera.get(link!);
      expect(items.statusCode).toBe(200);
      // The current version's items.csv, as in-main's v2 folder holds it.
      expect(items.body).toBe(read(path.join(reportDir, 'in-main', today, 'v2'), 'items.csv'));
      const ng = await vera.get(`/days/${today}?account=ng-brand`);
      expect(ng.body).toContain(`Business day ${today}, account ng-brand`);
      expect(ng.body).not.toContain('>v2<');
      const all = await vera.get(`/days/${today}`);
      expect(all.statusCode).toBe(302);
      expect(all.headers.location).toBe(`/days/${today}/accounts`);
      const byAccount = await vera.get(`/days/${today}/accounts`);
      expect(byAccount.statusCode).toBe(200);
      expect(byAccount.body).toContain(`<a href="/days/${today}?account=ng-brand">ng-brand</a>`);
    } finally {
      await app.close();
    }
  });

  it("prune removes a superseded version from its account's folder, and keeps each account's current one", async () => {
    const archiveDir = path.join(reportDir, 'archive');
    const pruned = await pruneReportVersions({
      db: t.db,
      logger: silentLogger,
      reportDir,
      cutoff: new Date(Date.now() + 86_400_000),
      dryRun: false,
      batchSize: 1000,
      archiveDir,
      stopped: () => false,
      now: () => new Date(),
    });
    expect(pruned.versions.map((v) => v.directory)).toEqual([path.join(reportDir, 'in-main', today, 'v1')]);
    expect(fs.existsSync(path.join(reportDir, 'in-main', today, 'v1'))).toBe(false);
    expect(fs.existsSync(path.join(reportDir, 'in-main', today, 'v2'))).toBe(true);
    expect(fs.existsSync(path.join(reportDir, 'ng-brand', today, 'v1'))).toBe(true);
    expect(fs.existsSync(path.join(archiveDir, 'report_versions', today.slice(0, 7), 'in-main', `${today}-v1.zip`))).toBe(true);
  });

  it("a console rerun of ng-brand's day reconciles and reports ng-brand only: its v2, in-main's versions untouched; sent to its recipients", async () => {
    const versionsOf = async (id: string) =>
      ((await t.db.knex('report_versions').where({ account_id: id }).orderBy('version').pluck('version')) as number[]).map((v) => `v${v}`);
    const inMainBefore = await versionsOf('in-main');
    // Something new in ng-brand's day (an order only the provider knows), so its rerun writes a new version.
    await t.db.knex.raw(
      `INSERT INTO webhook_events (account_id, direction, dedupe_key, transaction_ref, merchant_ref, currency, amount, status, raw_body, headers,
                                   received_at, confirmation, confirmed_at)
       VALUES ('ng-brand', 'payment', 'k-TX-RERUN-NG', 'TX-RERUN-NG', 'M-TX-RERUN-NG', 'INR', 10, 'Success', '{}', '{}', now(), 'confirmed', now())`,
    );
    const clock = new FixedClock(new Date());
    await addUsers(t, clock, { rita: 'finance' });
    const ctx = { config: consoleConfig(), logger: silentLogger, db: t.db };
    const running = await serveConsole({
      ...ctx,
      ...dayJobs(ctx),
      now: clock.now,
      port: 0,
      pollMs: 50,
      lockRetryMs: 50,
      lockWaitMs: 10_000,
    });
    try {
      const rita = new Agent(running.app, '10.7.1.3');
      await rita.login('rita');
      await rita.get(`/days/${today}?account=ng-brand`);
      const res = await rita.post('/reruns', { date: today, account: 'ng-brand' });
      expect(res.statusCode).toBe(303);
      const id = /\/reruns\/(\d+)$/.exec(res.headers.location as string)![1];
      await waitFor(async () => ['completed', 'failed'].includes((await findRerun(t.db.knex, id))!.state));
      const rerun = (await findRerun(t.db.knex, id))!;
      expect(rerun).toMatchObject({ account: 'ng-brand', state: 'completed', error: null, reportVersion: 2 });
      const runs = (await t.db.knex('job_runs').whereIn('id', rerun.reconcileRunIds).pluck('account_id')) as string[];
      expect(runs.length).toBeGreaterThan(0);
      expect(new Set(runs)).toEqual(new Set(['ng-brand']));
      expect(await versionsOf('ng-brand')).toEqual(['v1', 'v2']);
      expect(await versionsOf('in-main')).toEqual(inMainBefore);
      expect(read(path.join(reportDir, 'ng-brand', today, 'v2'), 'mismatches.csv')).toContain('TX-RERUN-NG');
      const page = await rita.get(`/reruns/${id}`);
      expect(page.body).toContain(`<a href="/days/${today}?account=ng-brand">${today}</a>, account ng-brand`);
      // Sent as ng-brand's v2, to ng-brand's recipients.
      const before = sink.received.length;
      const sent = await rita.post(`/reruns/${id}/send`);
      expect(sent.statusCode).toBe(303);
      const mails = sink.received.slice(before);
      expect(mails).toHaveLength(1);
      expect((Array.isArray(mails[0].to) ? mails[0].to : [mails[0].to]).map((x) => x?.text)).toEqual(['group-finance@merchant.example']);
      expect(mails[0].subject ?? '').toMatch(new RegExp(`^payrecon ng-brand ${today}: `));
    } finally {
      await running.close();
    }
  });

  it('lists an order only the provider knows in the report of the account whose notification it was', async () => {
    for (const [id, ref] of [
      ['in-main', 'TX-UNKNOWN-IN'],
      ['ng-brand', 'TX-UNKNOWN-NG'],
    ])
      await t.db.knex.raw(
        `INSERT INTO webhook_events (account_id, direction, dedupe_key, transaction_ref, merchant_ref, currency, amount, status, raw_body, headers,
                                     received_at, confirmation, confirmed_at)
         VALUES (?, 'payment', ?, ?, ?, 'INR', 10, 'Success', '{}', '{}', now(), 'confirmed', now())`,
        [id, `k-${ref}`, ref, `M-${ref}`],
      );
    const r = await reportJob({ date: today, account: 'ng-brand' }, context());
    expect(r.report.unchanged).toBe(false);
    const mismatches = read(r.report.directory, 'mismatches.csv');
    expect(mismatches).toContain('TX-UNKNOWN-NG');
    expect(mismatches).not.toContain('TX-UNKNOWN-IN');
  });
});
