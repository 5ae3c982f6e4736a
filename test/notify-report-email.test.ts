import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MailSink, freePort } from './helpers/mail-sink.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { reportDeliveryById } from '../src/db/deliveries.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { REPORT_FILES } from '../src/report/manifest.ts';
import { createMailer, type Mailer } from '../src/notify/mailer.ts';
import { retryPendingEmails, sendReportEmail } from '../src/report/email/send.ts';

const SEED = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'report-day.sql'), 'utf8');
const PASSWORD = 'sm7p-Pa55word';
const DATE = '2024-05-01';

describe.each(availableEngines)('report e-mail on %s', (engine) => {
  let t: TestDatabase;
  let mailer: Mailer;
  let sink: MailSink;
  let port: number;
  let versionId: string;
  let directory: string;
  const now = new Date('2024-05-02T02:00:00Z');

  beforeAll(async () => {
    port = await freePort();
    t = await createTestDatabase(`notify_mail_${engine}`, {
      engine,
      env: {
        SMTP_URL: `smtp://recon:${PASSWORD}@127.0.0.1:${port}`,
        REPORT_EMAIL_FROM: 'payrecon@merchant.example',
        REPORT_EMAIL_TO: 'accounting@merchant.example,cfo@merchant.example',
        NOTIFY_TIMEOUT_MS: '3000',
      },
    });
    await t.db.engine.runScript(t.db.knex, `SET search_path TO ${t.db.schema};\n${SEED}`);
  });
  // Each test starts from a freshly written version 1 that was never e-mailed, a mail server that is
  // not listening yet and has received nothing, and a new mailer, so the tests pass in any order.
  beforeEach(async () => {
    await t.db.knex.raw('DELETE FROM report_version_orders');
    await t.db.knex.raw('DELETE FROM report_versions');
    await t.db.knex.raw('TRUNCATE journal_posting_lines, journal_postings');
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-notify-'));
    // Exact tolerance, so the fixture's INR drift of 0.50 is a finding and shows in the subject.
    const r = await writeReports(t.db, { date: DATE, timezone: 'Asia/Kolkata', reportDir, now, currencies: ['INR', 'NGN', 'IDR'] });
    versionId = r.record!.id;
    directory = r.directory;
    mailer = createMailer(t.config);
    sink = new MailSink();
  });
  afterEach(async () => {
    mailer?.close();
    await sink?.close().catch(() => undefined);
  });
  afterAll(async () => {
    await t?.drop();
  });

  /** Two failed attempts: SMTP down, then a server refusing AUTH; the version is left pending. */
  async function failTwice(): Promise<void> {
    expect((await sendReportEmail(t.db, mailer, { versionId, now })).status).toBe('failed');
    await sink.listen(port);
    sink.refuseAuth = true;
    expect((await retryPendingEmails(t.db, mailer, now)).map((r) => r.status)).toEqual(['failed']);
    sink.refuseAuth = false;
  }

  /** Delivered once after two failed attempts (three attempts in all). */
  async function sentOnce(): Promise<void> {
    await failTwice();
    expect((await retryPendingEmails(t.db, mailer, now)).map((r) => r.status)).toEqual(['sent']);
    expect(sink.received).toHaveLength(1);
  }

  it('SMTP down: the version stays pending with the error and a counted attempt', async () => {
    const r = await sendReportEmail(t.db, mailer, { versionId, now });
    expect(r.status).toBe('failed');
    const row = await reportDeliveryById(t.db.knex, versionId);
    expect(row).toMatchObject({ email_status: 'pending', email_attempts: 1, emailed_at: null });
    expect(row!.email_error).toMatch(/ECONNREFUSED/);
  });

  it('a server refusing AUTH with the password in its reply: the stored error does not contain it', async () => {
    expect((await sendReportEmail(t.db, mailer, { versionId, now })).status).toBe('failed'); // SMTP down: attempt 1
    await sink.listen(port);
    sink.refuseAuth = true;
    const [r] = await retryPendingEmails(t.db, mailer, now);
    expect(r.status).toBe('failed');
    const row = await reportDeliveryById(t.db.knex, versionId);
    expect(row).toMatchObject({ email_status: 'pending', email_attempts: 2 });
    expect(row!.email_error).toContain('refused');
    expect(row!.email_error).not.toContain(PASSWORD);
    expect(JSON.stringify(r)).not.toContain(PASSWORD);
    expect(sink.received).toHaveLength(0);
  });

  it('SMTP up: the next run delivers it exactly once, with the headline, tables and every CSV byte for byte', async () => {
    await failTwice();
    const results = await retryPendingEmails(t.db, mailer, now);
    expect(results.map((r) => r.status)).toEqual(['sent']);
    expect(await retryPendingEmails(t.db, mailer, now)).toEqual([]);
    expect(sink.received).toHaveLength(1);

    const row = await reportDeliveryById(t.db.knex, versionId);
    expect(row).toMatchObject({ email_status: 'sent', email_attempts: 3, email_error: null, emailed_at: now });

    const mail = sink.received[0];
    expect(mail.subject).toBe(
      `payrecon ${DATE}: 9 orders, 3 mismatches, 1 error, 1 not yet reconciled… (v1)`, // cut to stay under 90 characters
    );
    expect(mail.text).toContain(`This is the first report for ${DATE} e-mailed to you; it carries version 1.`);
    // No path on the server in either part.
    expect(mail.text).not.toContain(directory);
    expect(mail.html).not.toContain(directory);
    expect(mail.messageId).toBe(`<payrecon.report.${DATE}.v1.0@merchant.example>`);
    expect((mail.to as { value: { address: string }[] }).value.map((a) => a.address)).toEqual([
      'accounting@merchant.example',
      'cfo@merchant.example',
    ]);
    // The summary tables from the same definitions as the files: orders (verdicts, provider statuses, gross, paid, fees, net).
    expect(mail.text).toMatch(/INR\s+payment\s+5\s+2\s+1\s+0\s+1\s+0\s+1\s+4\s+0\s+0\s+0\s+1\s+1,850\.50\s+1,800\.00\s+36\.00\s+1,764\.00/);
    expect(mail.text).toMatch(/INR\s+payout\s+2\s+.*987\.50\s+987\.50\s+18\.00\s+-1,005\.50/);
    expect(mail.text).toContain('Open items of earlier days');
    // The roll-forward with its snapshot times and timing items (count and movement), and the timing items listed.
    expect(mail.text).toMatch(
      /INR\s+2024-05-01 00:05:00 \+05:30\s+10,500\.00\s+490\.00\s+1,318\.00\s+-828\.00\s+0\.00\s+1\s+980\.00\s+10,652\.00\s+2024-05-01 23:55:00 \+05:30\s+10,652\.50\s+0\.50\s+0\.00\s+NO/,
    );
    expect(mail.text).toContain('Timing items of the roll-forward');
    expect(mail.text).toMatch(
      /INR\s+payment\s+M-MIDNIGHT\s+980\.00\s+2024-05-01 00:00:00 \+05:30\s+2024-05-01 05:30:00 \+05:30\s+opening\s+yes/,
    );
    expect(mail.html).toContain('>M-MIDNIGHT</td>');
    // Amounts grouped and right-aligned in the HTML tables.
    expect(mail.html).toMatch(/text-align:right">1,850\.50<\/td>/);
    expect(mail.html).toMatch(/text-align:right">drift<\/th>/);
    // The workbook first, then every CSV, each byte for byte; the charts inline (cid) and shown by the HTML.
    const files = mail.attachments.filter((a) => !a.cid);
    // The workbook, mismatches.csv and the journal files to import; the other CSVs are for machines and stay with the version.
    expect(files.map((a) => a.filename)).toEqual([
      'reconciliation.xlsx',
      'mismatches.csv',
      'journal.csv',
      'journal_xero.csv',
      'journal_quickbooks.csv',
      'journal_posting.csv',
    ]);
    for (const a of files) expect(a.content.equals(fs.readFileSync(path.join(directory, a.filename!))), a.filename).toBe(true);
    const inline = mail.attachments.filter((a) => a.cid);
    expect(inline.map((a) => a.filename)).toEqual(['mismatches-by-code.png', 'roll-forward.png', 'open-items-aging.png']);
    for (const a of inline) {
      expect(a.contentType).toBe('image/png');
      expect(a.content.equals(fs.readFileSync(path.join(directory, `chart-${a.filename}`))), a.filename).toBe(true);
      expect(a.related, a.filename).toBe(true); // part of the HTML, not a file to open
    }
    // mailparser turns cid: references into the images themselves: one per chart.
    expect((mail.html as string).match(/<img src="(cid|data):/g)).toHaveLength(3);
  });

  it('a sent version is not sent again; resend sends it once more under a new Message-ID', async () => {
    await sentOnce();
    const again = await sendReportEmail(t.db, mailer, { businessDate: DATE, version: 1, now });
    expect(again).toMatchObject({ status: 'already_sent', emailedAt: now });
    expect(sink.received).toHaveLength(1);

    const later = new Date(now.getTime() + 3_600_000);
    const resent = await sendReportEmail(t.db, mailer, { businessDate: DATE, version: 1, resend: true, now: later });
    expect(resent.status).toBe('sent');
    expect(sink.received).toHaveLength(2);
    expect(sink.received[1].messageId).toBe(`<payrecon.report.${DATE}.v1.${now.getTime()}@merchant.example>`);
    expect(sink.received[1].subject).toMatch(/\(v1, sent again\)$/);
    expect(await reportDeliveryById(t.db.knex, versionId)).toMatchObject({ email_status: 'sent', emailed_at: later, email_attempts: 4 });
  });

  it('CSV files together above the threshold are not attached and the e-mail says where they are; the workbook still is', async () => {
    await sentOnce();
    const r = await sendReportEmail(t.db, mailer, { versionId, resend: true, now, csvAttachLimitBytes: 1000 });
    expect(r.status).toBe('sent');
    const mail = sink.received.at(-1)!;
    const files = mail.attachments.filter((a) => !a.cid);
    expect(files.map((a) => a.filename)).toEqual(['reconciliation.xlsx']);
    expect(files[0].content.equals(fs.readFileSync(path.join(directory, 'reconciliation.xlsx')))).toBe(true);
    const total = REPORT_FILES.reduce((n, f) => n + fs.statSync(path.join(directory, f)).size, 0);
    expect(mail.text).toContain(
      `Not attached: the CSV files (${(total / 1024 / 1024).toFixed(1)} MB together, above the 0.0 MB e-mailed).`,
    );
    expect(mail.text).toContain(`kept with report ${DATE} version 1`);
    expect(mail.text).not.toContain(directory);
    expect(mail.html).not.toContain(directory);
  });

  it('an unknown version is a usage error, not a delivery result', async () => {
    await expect(sendReportEmail(t.db, mailer, { businessDate: DATE, version: 9, now })).rejects.toThrow(
      /no report version 2024-05-01 version 9/,
    );
  });
});
