import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { loadConfig } from '../src/config/config.ts';
import { describe as describeReport } from '../src/commands/report.ts';
import { reportJob } from '../src/services/report.ts';
import { ReportInputError } from '../src/report/date.ts';

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

  it('prints the version directory and row counts, then reports unchanged', async () => {
    const r = await reportJob({ date: '2024-05-01' }, { config: config() });
    expect(r.exitCode).toBe(0);
    expect(describeReport(r.report)).toBe(
      `report 2024-05-01: wrote v1\nno orders\n${path.join(reportDir, '2024-05-01', 'v1')}\n` +
        [
          ['items.csv', 0],
          ['mismatches.csv', 0],
          ['summary_orders.csv', 9],
          ['summary_rollforward.csv', 3],
          ['timing_items.csv', 0],
          ['summary_unknown_orders.csv', 0],
          ['summary_open_items.csv', 0],
          ['summary_late_changes.csv', 0],
          ['summary_cases.csv', 0],
          ['summary_case_activity.csv', 3],
          ['open_items.csv', 0],
          ['late_changes.csv', 0],
          ['balances.csv', 0],
          ['rates.csv', 0],
        ]
          .map(([name, rows]) => `  ${String(name).padEnd(26)}  ${rows} rows\n`)
          .join(''),
    );
    expect(r.report.record?.version).toBe(1);

    const again = await reportJob({ date: '2024-05-01' }, { config: config() });
    expect(again.report).toMatchObject({ version: 1, unchanged: true });
  });

  it('rejects a path-like --date with the usage exit code before opening the database', async () => {
    const bad = loadConfig({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REPORT_DIR: reportDir, LOG_LEVEL: 'silent' });
    const err = await reportJob({ date: '../../etc' }, { config: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReportInputError);
    expect((err as ReportInputError).exitCode).toBe(3);
  });
});
