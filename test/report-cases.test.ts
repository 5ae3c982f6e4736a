/**
 * Issue 16, reports showing case state: the mismatches and open items carry each order's case id,
 * state and age, and the report has a case summary per currency and code, in the CSVs, the
 * workbook, report.html and the e-mail. The sandbox is the provider over HTTP.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import type { SelectionRequest } from '../src/reconcile/selection.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';
import { writeReports, type WriteReportsResult } from '../src/report/write-reports.ts';
import { buildReportEmail } from '../src/report/email/content.ts';
import { acknowledgeCase, resolveCase } from '../src/cases/work.ts';
import { Decimal } from '../src/money/decimal.ts';
import { VOLATILE_COLUMNS } from '../src/report/business-view.ts';
import { STILL_OPEN_COLUMNS } from '../src/report/case-tables.ts';

const DAY = 86_400_000;
type Row = Record<string, string>;

describe('reports showing case state', () => {
  let world: World;
  let today: SeededOrder;
  let earlier: SeededOrder;
  let reportDir: string;
  const date = new Date().toISOString().slice(0, 10);

  const run = (request: SelectionRequest) => {
    const now = new Date();
    return reconcileWorld(world, { request, clock: () => now, concurrency: 2, batchSize: 10 });
  };
  const report = (now = new Date()) => writeReports(world.t.db, { date, timezone: 'UTC', reportDir, now, currencies: [] });
  const read = (r: WriteReportsResult, name: string) =>
    parse(fs.readFileSync(path.join(r.directory, name)), { columns: true, bom: true }) as Row[];
  const caseOf = async (o: SeededOrder, code: string) =>
    world.t.db.knex('cases').where({ transaction_ref: o.transactionRef, code }).first() as Promise<{ id: string; currency: string }>;

  beforeAll(async () => {
    world = await createWorld('report_cases');
    const orders = await seedMerchant(world.t.db.knex, world.client, { payments: 3, payouts: 0, seed: 5 });
    [today, earlier] = orders;
    await world.control.advanceClock(2_000);
    await run({}); // every order final and matched: no case
    const { knex } = world.t.db;
    // An order of two days ago, so it is carried as an open item of an earlier day.
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    await knex('payment_orders').where({ transaction_ref: earlier.transactionRef }).update({ created_at: twoDaysAgo });
    for (const o of [today, earlier]) {
      const fee = (await world.control.getOrder(o.transactionRef))!.fee;
      await world.control.setOrder(o.transactionRef, { fee: new Decimal(fee).plus(1).toFixed(2) }); // the provider now charges more
      await run({ ref: o.transactionRef }); // a FEE mismatch: a case opens
    }
    // The earlier order's case was opened three days ago: its age shows in whole days.
    await knex('cases')
      .where({ transaction_ref: earlier.transactionRef })
      .update({ opened_at: new Date(Date.now() - 3 * DAY - 60_000) });
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-report-cases-'));
  }, 120_000);
  afterAll(() => world?.close());

  it('mismatches and open items carry case id, state and age; the case summary counts them per currency and code', async () => {
    const todayCase = await caseOf(today, 'FEE');
    const earlierCase = await caseOf(earlier, 'FEE');
    expect(todayCase).toBeDefined();
    expect(earlierCase).toBeDefined();
    const r = await report();

    const mismatch = read(r, 'mismatches.csv').find((m) => m.transaction_ref === today.transactionRef)!;
    expect(mismatch).toMatchObject({ mismatch_codes: 'FEE', case_id: String(todayCase.id), case_state: 'open', case_age_days: '0' });
    const open = read(r, 'open_items.csv').find((m) => m.transaction_ref === earlier.transactionRef)!;
    expect(open).toMatchObject({ mismatch_codes: 'FEE', case_id: String(earlierCase.id), case_state: 'open', case_age_days: '3' });
    // An order without a case has empty case cells.
    const clean = read(r, 'items.csv').find((m) => m.verdict !== 'mismatch')!;
    expect(clean).toMatchObject({ case_id: '', case_state: '', case_age_days: '' });

    const summary = read(r, 'summary_cases.csv');
    expect(summary).toContainEqual(
      expect.objectContaining({
        currency: todayCase.currency,
        code: 'FEE',
        open: todayCase.currency === earlierCase.currency ? '2' : '1',
        acknowledged: '0',
        resolved: '0',
        written_off: '0',
      }),
    );

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path.join(r.directory, 'reconciliation.xlsx'));
    const header = (sheet: string) => (wb.getWorksheet(sheet)!.getRow(1).values as unknown[]).map(String);
    const sheetText = (sheet: string) => {
      const lines: string[] = [];
      wb.getWorksheet(sheet)!.eachRow((row) => lines.push(JSON.stringify(row.values)));
      return lines.join('\n');
    };
    expect(sheetText('Mismatches')).toContain('case state');
    expect(sheetText('Open items')).toContain('case state');
    expect(sheetText('Cases')).toContain('Cases by currency and code');
    expect(header('Mismatches').length).toBeGreaterThan(0);

    const html = fs.readFileSync(path.join(r.directory, 'report.html'), 'utf8');
    expect(html).toContain('Cases by currency and code');
    expect(html).toContain('case state');

    const email = buildReportEmail({ business_date: date, version: r.version, directory: r.directory });
    expect(email.text).toContain('Cases by currency and code');
    expect(email.html).toContain('Cases by currency and code');
  });

  it('ages are not business content: counted to the instant the version is written, they would make a new version every day', () => {
    expect(VOLATILE_COLUMNS).toEqual(expect.arrayContaining(['case_age_days', 'oldest_open_days', ...STILL_OPEN_COLUMNS]));
  });

  it('a case a person works shows as acknowledged, resolved or written off in a new version', async () => {
    const todayCase = await caseOf(today, 'FEE');
    const earlierCase = await caseOf(earlier, 'FEE');
    const now = new Date();
    await resolveCase(world.t.db, String(todayCase.id), { actor: 'asha', reason: 'written-off', note: 'below threshold', now });
    await acknowledgeCase(world.t.db, String(earlierCase.id), { actor: 'asha', note: 'asked the provider', now });
    const before = await report();
    expect(before.unchanged).toBe(false); // a case's state is business content
    expect(read(before, 'mismatches.csv').find((m) => m.transaction_ref === today.transactionRef)).toMatchObject({
      case_state: 'written off',
      case_age_days: '',
    });
    expect(read(before, 'open_items.csv').find((m) => m.transaction_ref === earlier.transactionRef)).toMatchObject({
      case_state: 'acknowledged',
    });

    // The provider corrects the fee: the recheck clears the case, and the report says resolved.
    const fee = (await world.control.getOrder(earlier.transactionRef))!.fee;
    await world.control.setOrder(earlier.transactionRef, { fee: new Decimal(fee).minus(1).toFixed(2) });
    await run({ ref: earlier.transactionRef });
    const after = await report();
    expect(after.version).toBe(before.version + 1);
    const rows = read(after, 'summary_cases.csv').filter((s) => s.code === 'FEE');
    const written = rows.reduce((n, s) => n + Number(s.written_off), 0);
    expect(written).toBe(1);
    // The earlier order is consistent now: no longer an open item; its case (an order of the lookback days) counts as resolved.
    expect(read(after, 'open_items.csv').some((m) => m.transaction_ref === earlier.transactionRef)).toBe(false);
    expect(rows.reduce((n, s) => n + Number(s.resolved), 0)).toBe(1);
  });
});
