import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReportEmail } from '../src/report/email/content.ts';

/** A version directory holding the given files. */
function versionDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-mail-content-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}
const ref = (directory: string) => ({ business_date: '2024-05-01', version: 2, directory });
const filesOf = (c: ReturnType<typeof buildReportEmail>) => c.attachments.filter((a) => !a.cid).map((a) => a.filename);

describe('report e-mail content', () => {
  const csv = {
    'summary_orders.csv': 'currency,direction,orders,gross\r\nINR,payment,2,1234567.5\r\n',
    'summary_rollforward.csv':
      'currency,opening_at,opening,timing_items,timing_movement\r\nINR,2024-05-01T00:05:00.000+05:30,10500,1,980\r\n',
    'timing_items.csv': 'currency,direction,merchant_ref,effect\r\n',
  };
  const manifest = JSON.stringify({
    headline: '2 orders, all matched',
    timezone: 'Asia/Kolkata',
    files: { 'summary_orders.csv': {}, 'summary_rollforward.csv': {}, 'timing_items.csv': {} },
  });

  it('reads the headline from the manifest and renders the tables through their definitions (empty ones left out)', () => {
    const c = buildReportEmail(ref(versionDir({ ...csv, 'manifest.json': manifest })), { previouslySent: 1 });
    expect(c.subject).toBe('payrecon 2024-05-01: 2 orders, all matched (v2, replaces v1)');
    expect(c.text).toMatch(/INR\s+payment\s+2\s+1,234,567\.50/);
    expect(c.text).toMatch(/INR\s+2024-05-01 00:05:00 \+05:30\s+10,500\.00\s+1\s+980\.00/);
    expect(c.text).not.toContain('Timing items of the roll-forward');
  });

  it('attaches mismatches.csv and the journal files (not the CSVs for machines) while together at most the limit; none above it', () => {
    const attached = {
      'mismatches.csv': 'merchant_ref\r\nM-1\r\n',
      'journal.csv': 'entry_id\r\n1\r\n',
      'journal_xero_2.csv': 'Narration\r\nx\r\n',
    };
    const both = Object.values(attached).reduce((n, t) => n + Buffer.byteLength(t), 0);
    const dir = versionDir({ ...csv, ...attached, 'manifest.json': manifest });
    expect(filesOf(buildReportEmail(ref(dir), { csvAttachLimitBytes: both }))).toEqual([
      'journal.csv',
      'journal_xero_2.csv',
      'mismatches.csv',
    ]);
    const over = buildReportEmail(ref(dir), { csvAttachLimitBytes: both - 1 });
    expect(filesOf(over)).toEqual([]);
    expect(over.text).toContain('Not attached: the CSV files (');
    expect(over.text).toContain('kept with report 2024-05-01 version 2');
    expect(over.text).not.toContain(dir);
  });

  it('still e-mails a version written with one summary.csv (before one file per table)', () => {
    const legacy = [
      'section,currency,direction,orders,matched,resolved,pending,mismatch,error,unchecked,gross,fees,net,note',
      'headline,,,,,,,,,,,,,"3 orders, 1 mismatch"',
      'orders,INR,payment,3,2,0,0,1,0,0,300.00,3.00,297.00,',
    ].join('\r\n');
    const c = buildReportEmail(ref(versionDir({ 'summary.csv': legacy, 'manifest.json': '{"files":{"summary.csv":{}}}' })));
    expect(c.subject).toBe('payrecon 2024-05-01: 3 orders, 1 mismatch (v2)');
    expect(c.text).toMatch(/INR\s+payment\s+3\s+2/);
    expect(filesOf(c)).toEqual([]);
  });

  it.each([
    {
      sent: null,
      version: 1,
      short: '(v1)',
      long: 'This is the first report for 2024-05-01 e-mailed to you; it carries version 1.',
    },
    { sent: null, version: 2, short: '(v2)', long: 'Version 2 of 2024-05-01.' },
    {
      sent: 1,
      version: 2,
      short: '(v2, replaces v1)',
      long: 'Version 2 of 2024-05-01, replaces version 1, which you received earlier.',
    },
  ])('says the version truly: version $version, last sent $sent', ({ sent, version, short, long }) => {
    const c = buildReportEmail({ ...ref(versionDir({ ...csv, 'manifest.json': manifest })), version }, { previouslySent: sent });
    expect(c.subject.endsWith(short)).toBe(true);
    expect(c.text).toContain(long);
    expect(c.text).not.toMatch(sent === null && version > 1 ? /first report/ : /^$/);
  });

  it('keeps the subject under 90 characters, the headline cut at a word; money per currency first; a charset in the HTML', () => {
    const long = JSON.stringify({
      headline: '9 orders, 3 mismatches, 1 error, 1 not yet reconciled, INR drift 0.50, NGN drift 1,250.00; 3 open items from earlier days',
      timezone: 'Asia/Kolkata',
      files: {},
    });
    const c = buildReportEmail(ref(versionDir({ ...csv, 'manifest.json': long })), { previouslySent: 1 });
    expect(c.subject.length).toBeLessThan(90);
    expect(c.subject).toBe('payrecon 2024-05-01: 9 orders, 3 mismatches, 1 error… (v2, replaces v1)');
    expect(c.html).toContain('<meta charset="utf-8">');
    expect(c.html.indexOf('Money per currency')).toBeLessThan(c.html.indexOf('The other files of this version'));
  });

  it("says per currency what the day's movements brought in and took out (movements.csv), 0 for a currency without any", () => {
    const orders = 'currency,direction,orders,net,fees,mismatch\r\nINR,total,2,1000,10,0\r\nNGN,total,1,500,5,1\r\nIDR,total,1,7,0,0\r\n';
    const movements = [
      'currency,reference,kind,direction,amount,effect',
      'INR,W-1,withdrawal,out,84000,-84000',
      'INR,ADJ-1,adjustment,in,12.5,12.5',
      'INR,CHG-1,charge,out,0.5,-0.5',
      'NGN,T-1,top_up,in,1500000,1500000',
    ].join('\r\n');
    const c = buildReportEmail(ref(versionDir({ ...csv, 'summary_orders.csv': orders, 'movements.csv': `${movements}\r\n` })));
    expect(c.text).toMatch(/currency\s+net\s+fees\s+mismatches\s+movements in\s+movements out\s+drift/);
    expect(c.text).toMatch(/INR\s+1,000\.00\s+10\.00\s+0\s+12\.50\s+84,000\.50/);
    expect(c.text).toMatch(/NGN\s+500\.00\s+5\.00\s+1\s+1,500,000\.00\s+0\.00/);
    expect(c.text).toMatch(/IDR\s+7\.00\s+0\.00\s+0\s+0\.00\s+0\.00\s/);
    expect(c.html).toContain('movements in');
    // A version written before movements.csv: the columns are there, empty.
    const before = buildReportEmail(ref(versionDir({ ...csv, 'summary_orders.csv': orders })));
    expect(before.text).toMatch(/NGN\s+500\.00\s+5\.00\s+1\s*\n/);
  });
});
