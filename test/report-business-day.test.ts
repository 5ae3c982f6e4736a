/**
 * A business day's report as finance uses it, on Postgres with the sandbox over HTTP: the orders
 * created on the day with their latest check whenever it ran, honest headlines, open items with
 * aging, late changes to earlier days, dates, versions only on change, and e-mail exactly once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { waitFor } from './helpers/cli.ts';
import { MailSink, freePort } from './helpers/mail-sink.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { reportJob } from '../src/services/report.ts';
import { jobRunners } from '../src/services/schedule-runners.ts';
import { listReportVersions, lockReportDate } from '../src/db/reports.ts';
import { writeReportsInTransaction } from '../src/report/write-reports.ts';
import { UsageError } from '../src/domain/errors.ts';
import type { ReportManifest } from '../src/report/manifest.ts';
import { silentLogger } from '../src/log/logger.ts';

const ZONE = 'Asia/Kolkata';
/** Local noon of a business day in ZONE (UTC+05:30). */
const noonOf = (date: string) => new Date(`${date}T06:30:00Z`);
/** 06:00 local on the day after: when the nightly report runs. */
const morningAfter = (date: string) => new Date(new Date(`${date}T00:30:00Z`).getTime() + 86_400_000);
type Row = Record<string, string>;
const readCsv = (dir: string, name: string): Row[] => parse(fs.readFileSync(path.join(dir, name)), { columns: true, bom: true });
const manifestOf = (dir: string): ReportManifest => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
/** The headline as a reader meets it: the manifest's, and the one report.html and the workbook's Summary sheet lead with. */
const headlineOf = (dir: string) => {
  const headline = manifestOf(dir).headline;
  expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain(`<p class="headline">${headline}</p>`);
  return headline;
};

// The jobs open their own connection beside the test's: PGlite serves one at a time.
describe.skipIf(requiresServer("the report and reconcile jobs open a connection beside the test's"))(
  'business-day reports on Postgres with the sandbox',
  () => {
    let world: World;
    let sink: MailSink;
    let reportDir: string;
    beforeAll(async () => {
      const port = await freePort();
      sink = new MailSink();
      await sink.listen(port);
      reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-business-day-'));
      world = await createWorld('report_business_day', {
        env: {
          REPORT_TIMEZONE: ZONE,
          REPORT_DIR: reportDir,
          SMTP_URL: `smtp://127.0.0.1:${port}`,
          REPORT_EMAIL_FROM: 'payrecon@merchant.example',
          REPORT_EMAIL_TO: 'accounting@merchant.example',
          LOG_LEVEL: 'silent',
        },
      });
    });
    afterAll(async () => {
      await world?.close();
      await sink?.close();
    });

    let seed = 100;
    const seedDay = (date: string, payments: number, payouts: number): Promise<SeededOrder[]> =>
      seedMerchant(world.t.db.knex, world.client, { payments, payouts, seed: seed++, createdAt: () => noonOf(date) });
    /** Every order initiated so far final at the provider (the clean lifecycle: one second). */
    const settle = () => world.control.advanceClock(2_000);
    const reconcile = async (request: { date?: string; ref?: string }): Promise<string[]> => {
      const { outcome } = await reconcileJob({ ...request, progress: false }, { config: world.config });
      expect(outcome.status).toBe('completed');
      return outcome.runs.map((r) => r.runId);
    };
    const report = (date: string, now: Date, more: { email?: boolean; force?: boolean } = {}) =>
      reportJob({ date, now: () => now, ...more }, { config: world.config });
    const mailsFor = (date: string) => sink.received.filter((m) => m.subject?.startsWith(`payrecon ${date}:`));
    /** Subjects without the trailing version label ("(v1)"): the headline is what is tested here. */
    const subjectsFor = (date: string) => mailsFor(date).map((m) => m.subject!.replace(/ \([^()]*\)$/, ''));

    it('a past day rerun, then that day\'s report shows the rerun; an unchecked day is never "all matched"', async () => {
      const day = '2026-03-02';
      const orders = await seedDay(day, 3, 3);

      const before = await report(day, morningAfter(day), { email: true });
      expect(before.report.version).toBe(1);
      const items = readCsv(before.report.directory, 'items.csv');
      expect(items).toHaveLength(6);
      expect(items.every((r) => r.verdict === 'unchecked' && r.run_id === '' && r.checked_at === '')).toBe(true);
      expect(headlineOf(before.report.directory)).toBe('6 orders not yet reconciled');
      expect(subjectsFor(day)).toEqual([`payrecon ${day}: 6 orders not yet reconciled`]);

      // One order checked: the rest are still said to be unchecked.
      await settle();
      const [refRun] = await reconcile({ ref: orders[0].transactionRef });
      const partly = await report(day, morningAfter(day));
      expect(partly.report.manifest.headline).toBe('6 orders, 0 mismatches, 5 not yet reconciled');
      expect(readCsv(partly.report.directory, 'items.csv').find((r) => r.transaction_ref === orders[0].transactionRef)).toMatchObject({
        run_id: refRun,
        verdict: 'resolved',
      });

      // Finance reruns the day weeks later: the day's report (not the rerun's day) shows it.
      const runIds = await reconcile({ date: day });
      const after = await report(day, new Date('2026-03-30T06:00:00Z'));
      expect(after.report).toMatchObject({ version: 3, unchanged: false });
      const rerun = readCsv(after.report.directory, 'items.csv');
      expect(rerun.map((r) => r.transaction_ref).sort()).toEqual(orders.map((o) => o.transactionRef).sort());
      expect(rerun.every((r) => runIds.includes(r.run_id) && r.verdict !== 'unchecked')).toBe(true);
      expect(after.report.manifest.headline).toBe('6 orders, 0 mismatches, balances not checked'); // no balance snapshots in the sandbox day
      expect(after.report.manifest.run_ids).toEqual(expect.arrayContaining(runIds));
    });

    it('a day with no orders says "no orders" in the summary and the e-mail subject, never "all matched"', async () => {
      // Before every day the other tests seed, so no open item of an earlier day can join the headline.
      const day = '2026-01-05';
      const r = await report(day, morningAfter(day), { email: true });
      expect(readCsv(r.report.directory, 'items.csv')).toEqual([]);
      expect(headlineOf(r.report.directory)).toBe('no orders');
      expect(r.emails.map((e) => e.status)).toEqual(['sent']);
      expect(subjectsFor(day)).toEqual([`payrecon ${day}: no orders`]);
    });

    it("the daily job's report includes its own reconcile, and is e-mailed once", async () => {
      const day = '2026-03-04';
      const orders = await seedDay(day, 2, 2);
      await settle();
      const runners = jobRunners({ config: world.config, db: world.t.db, now: () => morningAfter(day) });
      const res = await runners.daily({
        scheduledFor: morningAfter(day),
        reason: 'scheduled',
        date: day,
        signal: new AbortController().signal,
        logger: silentLogger,
      });
      expect(res.status).toBe('completed');
      const reconcileRunIds = res.detail!.reconcileRunIds as string[];
      expect(reconcileRunIds.length).toBeGreaterThan(0);

      const [version] = await listReportVersions(world.t.db.knex, day);
      const items = readCsv(version.directory, 'items.csv');
      expect(items.map((r) => r.transaction_ref).sort()).toEqual(orders.map((o) => o.transactionRef).sort());
      expect(items.every((r) => reconcileRunIds.includes(r.run_id) && r.verdict === 'resolved')).toBe(true);
      expect(manifestOf(version.directory).run_ids).toEqual(expect.arrayContaining(reconcileRunIds));
      expect(subjectsFor(day)).toEqual([`payrecon ${day}: 4 orders, 0 mismatches, balances not checked`]);
    });

    it('carries the open items of earlier days with their business day, age and aging bucket', async () => {
      const day = '2026-03-20';
      const [yesterday] = await seedDay('2026-03-19', 1, 0); // never checked: 1 day old
      const [stuck] = await seedDay('2026-03-17', 1, 0); // checked while the provider still said pending
      const [wrong] = await seedDay('2026-03-15', 1, 0); // checked, the provider's amount differs
      const [old] = await seedDay('2026-03-10', 0, 1); // a payout never checked, 10 days old
      const [fine] = await seedDay('2026-03-18', 1, 0); // checked and consistent: not open
      const [ancient] = await seedDay('2026-02-01', 1, 0); // beyond RECON_LOOKBACK_DAYS (30)
      await world.control.setOrder(stuck.transactionRef, { status: 'Initiated' }); // pinned: never final
      await reconcile({ ref: stuck.transactionRef });
      await settle();
      await world.control.setOrder(wrong.transactionRef, { amount: '999999.99' });
      await reconcile({ ref: wrong.transactionRef });
      await reconcile({ ref: fine.transactionRef });

      const r = await report(day, morningAfter(day));
      const open = new Map(readCsv(r.report.directory, 'open_items.csv').map((o) => [o.transaction_ref, o]));
      expect(open.get(yesterday.transactionRef)).toMatchObject({
        business_date: '2026-03-19',
        age_days: '1',
        aging_bucket: '0-1',
        verdict: 'unchecked',
      });
      expect(open.get(stuck.transactionRef)).toMatchObject({ business_date: '2026-03-17', age_days: '3', aging_bucket: '1-3' });
      expect(['pending', 'mismatch']).toContain(open.get(stuck.transactionRef)!.verdict);
      expect(open.get(wrong.transactionRef)).toMatchObject({
        business_date: '2026-03-15',
        age_days: '5',
        aging_bucket: '3-7',
        verdict: 'mismatch',
      });
      expect(open.get(wrong.transactionRef)!.mismatch_codes).toContain('AMOUNT');
      expect(open.get(old.transactionRef)).toMatchObject({
        business_date: '2026-03-10',
        direction: 'payout',
        age_days: '10',
        aging_bucket: '7+',
        verdict: 'unchecked',
      });
      expect(open.has(fine.transactionRef)).toBe(false);
      expect(open.has(ancient.transactionRef)).toBe(false);

      const summary = readCsv(r.report.directory, 'summary_open_items.csv');
      expect(summary.reduce((n, s) => n + Number(s.orders), 0)).toBe(open.size);
      expect(r.report.manifest.headline).toBe(`no orders; ${open.size} open items from earlier days`);
    });

    it("lists late changes to earlier days until that day's report is written again", async () => {
      const day = '2026-03-25';
      const later = '2026-03-27';
      // An order of the day before, never checked: an open item of an earlier day in every report here.
      await seedDay('2026-03-24', 1, 0);
      const [reversed, kept] = await seedDay(day, 2, 0);
      await settle();
      await reconcile({ date: day });
      const v1 = await report(day, morningAfter(day));
      // (The open items of earlier days follow after the semicolon.)
      expect(v1.report.manifest.headline).toMatch(/^2 orders, 0 mismatches, balances not checked;/);

      // Days later the provider reverses one success; a rerun of the day finds it (the other is matched now).
      await world.control.setOrder(reversed.transactionRef, { status: 'Failed' });
      await reconcile({ date: day });
      const laterReport = await report(later, morningAfter(later));
      const late = readCsv(laterReport.report.directory, 'late_changes.csv');
      expect(late).toEqual([
        expect.objectContaining({
          business_date: day,
          reported_version: String(v1.report.version),
          transaction_ref: reversed.transactionRef,
          reported_verdict: 'resolved',
          reported_codes: '',
          verdict: 'mismatch',
          // The reversal still reports the paid amount and fee: money on a failed payment (issue 25 item 7).
          mismatch_codes: 'FEE PAID_AMOUNT STATUS',
        }),
      ]);
      expect(late.some((l) => l.transaction_ref === kept.transactionRef)).toBe(false);
      expect(laterReport.report.manifest.headline).toMatch(/; .*1 late change$/);

      // The day's own report is written again: it records the change, and the later day stops listing it.
      const v2 = await report(day, new Date('2026-03-28T06:00:00Z'));
      expect(v2.report).toMatchObject({ version: v1.report.version + 1, unchanged: false });
      expect(v2.report.manifest.headline).toMatch(/^2 orders, 1 mismatch;/);
      const again = await report(later, morningAfter(later));
      expect(again.report).toMatchObject({ version: laterReport.report.version + 1, unchanged: false });
      expect(readCsv(again.report.directory, 'late_changes.csv')).toEqual([]);
    });

    it('refuses a date in the future (exit 3, nothing written); today is partial in manifest, summary and subject', async () => {
      const now = new Date('2026-03-28T12:00:00Z'); // 17:30 on March 28th in Kolkata
      const err = await report('2026-03-29', now).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(3);
      expect((err as Error).message).toContain('future');
      expect(fs.existsSync(path.join(reportDir, '2026-03-29'))).toBe(false);

      await seedDay('2026-03-28', 1, 0);
      const today = await report('2026-03-28', now, { email: true });
      expect(today.report.manifest.partial).toBe(true);
      expect(today.report.manifest.headline).toMatch(/^day not over, so far: 1 order not yet reconciled/);
      expect(headlineOf(today.report.directory)).toBe(today.report.manifest.headline);
      // The subject keeps the day's own part of the headline; the earlier days' part is cut to stay under 90 characters.
      const [subject] = subjectsFor('2026-03-28');
      expect(subject.startsWith(`payrecon 2026-03-28: ${today.report.manifest.headline.split(';')[0]}`)).toBe(true);
      expect(mailsFor('2026-03-28').every((m) => m.subject!.length < 90)).toBe(true);
    });

    it('an identical rerun makes no new version and sends no e-mail; the manifest names the runs behind the version', async () => {
      const day = '2026-03-06';
      await seedDay(day, 2, 2);
      await settle();
      const first = await reconcile({ date: day });
      const v1 = await report(day, morningAfter(day), { email: true });
      expect(v1.emails.map((e) => e.status)).toEqual(['sent']);
      expect(v1.report.manifest.run_ids).toEqual(first);

      // A second reconcile finds the same (matched now instead of resolved, with new run ids and check times).
      const second = await reconcile({ date: day });
      expect(second).not.toEqual(first);
      const rerun = await report(day, new Date(morningAfter(day).getTime() + 3_600_000), { email: true });
      expect(rerun.report).toMatchObject({ version: 1, unchanged: true });
      expect(rerun.emails.map((e) => e.status)).toEqual(['already_sent']);
      expect(mailsFor(day)).toHaveLength(1);
      expect(await listReportVersions(world.t.db.knex, day)).toHaveLength(1);

      // --force keeps its meaning: a new version of the same content.
      const forced = await report(day, new Date(morningAfter(day).getTime() + 7_200_000), { force: true });
      expect(forced.report).toMatchObject({ version: 2, unchanged: false });
      expect(forced.report.manifest.business_hash).toBe(v1.report.manifest.business_hash);
    });

    it.skipIf(requiresServer('a report run waits on another connection holding the date lock'))(
      'report --email started while another report of the day is writing e-mails that version exactly once',
      async () => {
        const day = '2026-03-08';
        await seedDay(day, 1, 1);
        const { knex } = world.t.db;
        const now = morningAfter(day);
        // "Another report --date D" holds the date's lock in its transaction while it writes.
        const writer = await knex.transaction({ isolationLevel: 'repeatable read' });
        let emailing: ReturnType<typeof report> | undefined;
        try {
          await lockReportDate(writer, day);
          emailing = report(day, now, { email: true });
          await waitFor(async () => {
            const res = await knex.raw(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
            return res.rows[0].n > 0;
          });
          await writeReportsInTransaction(writer, {
            date: day,
            timezone: ZONE,
            reportDir,
            now,
            currencies: world.config.RECON_CURRENCIES,
            lookbackDays: world.config.RECON_LOOKBACK_DAYS,
          });
          await writer.commit();
        } catch (err) {
          await writer.rollback();
          throw err;
        }
        const r = await emailing;
        expect(r.report).toMatchObject({ version: 1, unchanged: true });
        expect(r.emails.map((e) => e.status)).toEqual(['sent']);
        expect(mailsFor(day)).toHaveLength(1);

        expect(await report(day, now, { email: true })).toMatchObject({ emails: [expect.objectContaining({ status: 'already_sent' })] });
        expect(mailsFor(day)).toHaveLength(1);

        // Two `report --email` runs of a new day at once: one writes v1, the other waits and finds it; one mail.
        const other = '2026-03-09';
        await seedDay(other, 1, 0);
        const both = await Promise.all([
          report(other, morningAfter(other), { email: true }),
          report(other, morningAfter(other), { email: true }),
        ]);
        expect(both.map((b) => b.report.version)).toEqual([1, 1]);
        expect(both.map((b) => b.report.unchanged).sort()).toEqual([false, true]);
        expect(both.flatMap((b) => b.emails.map((e) => e.status)).filter((s) => s === 'sent')).toEqual(['sent']);
        expect(mailsFor(other)).toHaveLength(1);
        const [row] = await listReportVersions(world.t.db.knex, other);
        expect(row.email_status).toBe('sent');
      },
    );
  },
);
