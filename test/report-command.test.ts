import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { loadConfig } from '../src/config/config.ts';
import { describe as describeReport } from '../src/commands/report.ts';
import { listedFiles, REPORT_FILES, type ReportManifest } from '../src/report/manifest.ts';
import { reportJob } from '../src/services/report.ts';
import { UsageError } from '../src/domain/errors.ts';

describe('payrecon report', () => {
  let t: TestDatabase;
  let reportDir: string;
  beforeAll(async () => {
    t = await createTestDatabase('report_cmd');
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-report-cmd-'));
  });
  afterAll(async () => {
    await t?.drop();
  });
  const config = () =>
    loadConfig({
      DATABASE_URL: t.config.DATABASE_URL ?? '',
      PGLITE_DIR: t.config.PGLITE_DIR,
      REPORT_DIR: reportDir,
      REPORT_TIMEZONE: 'Asia/Kolkata',
      LOG_LEVEL: 'silent',
    });

  it.skipIf(requiresServer('the report process opens the database this test holds open'))(
    'prints the version directory, the workbook and report.html first, then each CSV with its rows, then reports unchanged',
    async () => {
      const r = await reportJob({ date: '2024-05-01' }, { config: config() });
      expect(r.exitCode).toBe(0);
      const workbookRows = r.report.manifest.files['reconciliation.xlsx']?.rows;
      expect(workbookRows).toBeGreaterThan(0);
      expect(describeReport(r.report)).toBe(
        `report 2024-05-01: wrote v1\nno orders\n${path.join(reportDir, '2024-05-01', 'v1')}\n` +
          [
            ['reconciliation.xlsx', `${workbookRows} rows over all sheets`],
            ['report.html', ''],
            ['items.csv', '0 rows'],
            ['mismatches.csv', '0 rows'],
            ['summary_orders.csv', '9 rows'],
            ['summary_rollforward.csv', '3 rows'],
            ['timing_items.csv', '0 rows'],
            ['movements.csv', '0 rows'],
            ['summary_journal.csv', '3 rows'],
            ['summary_unknown_orders.csv', '0 rows'],
            ['summary_identity_mismatches.csv', '0 rows'],
            ['summary_open_items.csv', '0 rows'],
            ['summary_late_changes.csv', '0 rows'],
            ['summary_cases.csv', '0 rows'],
            ['summary_case_activity.csv', '3 rows'],
            ['open_items.csv', '0 rows'],
            ['late_changes.csv', '0 rows'],
            ['balances.csv', '0 rows'],
            ['rates.csv', '0 rows'],
            ['journal.csv', '0 rows'],
            ['journal_xero.csv', '0 rows'],
            ['journal_quickbooks.csv', '0 rows'],
            ['journal_posting.csv', '0 rows'],
            ['trial_balance.csv', '0 rows'],
          ]
            .map(([name, note]) => `  ${name.padEnd(31)}  ${note}`.trimEnd() + '\n')
            .join(''),
      );
      expect(r.report.record?.version).toBe(1);

      const again = await reportJob({ date: '2024-05-01' }, { config: config() });
      expect(again.report).toMatchObject({ version: 1, unchanged: true });
    },
  );

  it('rejects a path-like --date with the usage exit code before opening the database', async () => {
    const bad = loadConfig({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REPORT_DIR: reportDir, LOG_LEVEL: 'silent' });
    const err = await reportJob({ date: '../../etc' }, { config: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(3);
  });

  it.each(['0001-01-01', '1999-12-31', '9999-12-31'])(
    'refuses --date %s (outside 2000-01-01..9999-12-30) with the usage exit code and no run_failed alert',
    async (date) => {
      const err = await reportJob({ date }, { config: config() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(3);
      expect((err as Error).message).toBe(`invalid date ${date}: expected a calendar date as YYYY-MM-DD from 2000-01-01 to 9999-12-30`);
      expect(await t.db.knex('alerts').where({ kind: 'run_failed' }).count<{ n: string }[]>('* as n')).toEqual([{ n: '0' }]);
    },
  );

  it.skipIf(requiresServer('the report process opens the database this test holds open'))(
    'accepts the first date of the range',
    async () => {
      expect((await reportJob({ date: '2000-01-01' }, { config: config() })).exitCode).toBe(0);
    },
  );

  it.each([
    {
      name: 'a version with the workbook and report.html lists them first',
      extras: { 'reconciliation.xlsx': { rows: 1, bytes: 9, sha256: 'x' }, 'report.html': { rows: null, bytes: 9, sha256: 'y' } },
      first: [
        { name: 'reconciliation.xlsx', note: '1 row over all sheets' },
        { name: 'report.html', note: '' },
      ],
    },
    { name: 'a version written before them lists the CSVs only', extras: {}, first: [] },
  ])('listedFiles: $name', ({ extras, first }) => {
    const csv = Object.fromEntries(REPORT_FILES.map((n, i) => [n, { rows: i * 1000, bytes: 1, sha256: 's', business_sha256: 'b' }]));
    const files = { ...csv, ...extras } as unknown as ReportManifest['files'];
    expect(listedFiles(files)).toEqual([
      ...first,
      ...REPORT_FILES.map((name, i) => ({ name, note: `${(i * 1000).toLocaleString('en-US')} rows` })),
    ]);
  });

  it('listedFiles: the Xero parts follow journal_xero.csv in number order; a version from before the journal lists what it has', () => {
    const csv = Object.fromEntries(REPORT_FILES.map((n) => [n, { rows: 1, bytes: 1, sha256: 's', business_sha256: 'b' }]));
    const part = (rows: number) => ({ rows, bytes: 1, sha256: 's', business_sha256: 'b' });
    const files = { ...csv, 'journal_xero_10.csv': part(10), 'journal_xero_2.csv': part(2) } as unknown as ReportManifest['files'];
    const names = listedFiles(files).map((f) => f.name);
    expect(names.slice(names.indexOf('journal.csv'))).toEqual([
      'journal.csv',
      'journal_xero.csv',
      'journal_xero_2.csv',
      'journal_xero_10.csv',
      'journal_quickbooks.csv',
      'journal_posting.csv',
      'trial_balance.csv',
    ]);
    const journalFile = (n: string) => n.includes('journal') || n === 'trial_balance.csv';
    const old = Object.fromEntries(Object.entries(csv).filter(([n]) => !journalFile(n))) as unknown as ReportManifest['files'];
    expect(listedFiles(old).map((f) => f.name)).toEqual(REPORT_FILES.filter((n) => !journalFile(n)));
  });
});
