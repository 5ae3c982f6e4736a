import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { EXTRA_FILES } from '../src/report/manifest.ts';
import { writeReports, type WriteReportsResult } from '../src/report/write-reports.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';

const SEED = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'report-day.sql'), 'utf8');
// A bank code with a leading zero: a spreadsheet must keep it as text.
const EXTRA = `UPDATE payout_orders SET bank_code = '044' WHERE id = 20;`;
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The same writer as every version: the workbook, charts and report.html beside the CSVs. */
describe("a version's workbook, charts and report.html", () => {
  let t: TestDatabase;
  let r: WriteReportsResult;
  let wb: ExcelJS.Workbook;

  // The shared 60 s hook limit: this setup (a database from the template, the day's rows, one whole
  // version written and its workbook read) measured 3.7 s at load average 20 on 2 cores (2026-11-27,
  // 8.3 s of tests minus 4.6 s of its cases); a run that exceeds 60 s is stuck, not slow.
  beforeAll(async () => {
    const engine = availableEngines[0];
    t = await createTestDatabase(`report_workbook_${engine}`, { engine });
    const sql = `${SEED}\n${EXTRA}`;
    await t.db.engine.runScript(t.db.knex, `SET search_path TO ${t.db.schema};\n${sql}`);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-workbook-'));
    r = await writeReports(t.db, {
      date: '2024-05-01',
      timezone: 'Asia/Kolkata',
      reportDir,
      now: new Date('2024-05-02T01:00:00Z'),
      currencies: ['INR', 'NGN', 'IDR'],
      pageSize: 3,
    });
    wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path.join(r.directory, 'reconciliation.xlsx'));
  });
  afterAll(async () => {
    await t?.drop();
  });

  const csv = (name: string) =>
    parse(fs.readFileSync(path.join(r.directory, name)), { columns: true, bom: true }) as Record<string, string>[];

  it('lists every file in the manifest with the SHA-256 of its bytes', () => {
    for (const name of EXTRA_FILES) {
      const entry = r.manifest.files[name];
      expect(entry, name).toBeDefined();
      expect(entry!.sha256, name).toBe(sha256(path.join(r.directory, name)));
    }
  });

  it('holds the sheets in reading order, each with a frozen header and an autofilter over its data', () => {
    expect(wb.worksheets.map((w) => w.name)).toEqual([
      'Summary',
      // What accounting opens, right after the Summary (issue 37).
      'Journal',
      'Trial balance',
      'Mismatches',
      'Open items',
      'Late changes',
      'Roll-forward',
      'Timing items',
      // The movements the roll-forward counted (issue 38).
      'Movements',
      'Items',
      'Balances',
      'Rates',
      'Unknown orders',
      'Identity mismatches',
      'Open items by age',
      'Late changes by currency',
      'Cases',
      'Case activity',
      // Not a table of the index (summary_orders counted): after the index's sheets, as written.
      'Orders by verdict',
      'Journal per currency',
    ]);
    const items = wb.getWorksheet('Items')!;
    expect(items.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(items.getRow(1).getCell(1).value).toBe('business date');
    expect(items.autoFilter).toMatch(/^A1:AE\d+$/);
  });

  it('the Journal sheet is journal.csv as one table: debits and credits numbers, account codes text', () => {
    const sheet = wb.getWorksheet('Journal')!;
    const lines = csv('journal.csv');
    expect(lines.length).toBeGreaterThan(0);
    const header = (sheet.getRow(1).values as string[]).slice(1);
    expect(header.slice(0, 8)).toEqual(['entry id', 'date', 'currency', 'role', 'account code', 'account name', 'debit', 'credit']);
    expect(sheet.actualRowCount).toBe(lines.length + 1);
    lines.forEach((l, i) => {
      const row = sheet.getRow(i + 2);
      expect(row.getCell(1).value).toBe(l.entry_id);
      expect(row.getCell(5).value).toBe(l.account_code);
      const num = (v: string) => (v === '' ? null : Number(v));
      expect([row.getCell(7).value ?? null, row.getCell(8).value ?? null]).toEqual([num(l.debit), num(l.credit)]);
    });
  });

  it('one table per sheet, money first, business date a date, USDT formatted, printed landscape to the page width with its header repeated', () => {
    const valuesOf = (name: string) => Array.from(wb.getWorksheet(name)!.getSheetValues(), (v) => (Array.isArray(v) ? v.slice(1) : []));
    for (const ws of wb.worksheets) {
      // One header row per sheet: a row styled as a header appears once.
      const isHeader = (row: ExcelJS.Row) => {
        const fill = row.getCell(1).fill;
        return fill?.type === 'pattern' && fill.fgColor?.argb === 'FFE8ECF2';
      };
      const headerRows = ws.getRows(1, Math.min(ws.rowCount, 5_000))!.filter(isHeader);
      expect(headerRows.length, ws.name).toBeLessThanOrEqual(1);
      // Fitted to the page width where that stays readable; a wider sheet at 60 %, its columns running on.
      const width = ws.columns.reduce((a, c) => a + (c.width ?? 0), 0);
      // The Journal and Trial balance print at 75 % (8.25 pt of 11), readable on paper, whatever their width (issue 37).
      const onPaper = ws.name === 'Journal' || ws.name === 'Trial balance';
      const print = onPaper
        ? { fitToPage: false, scale: 75 }
        : width <= 275
          ? { fitToPage: true, fitToWidth: 1, fitToHeight: 0 }
          : { fitToPage: false, scale: 60 };
      expect(ws.pageSetup, ws.name).toMatchObject({ orientation: 'landscape', ...print });
      if (ws.name === 'Summary') expect(ws.pageSetup.fitToPage).toBe(true);
      if (ws.name === 'Items' || ws.name === 'Summary') expect(ws.pageSetup.printTitlesRow, ws.name).toMatch(/^\$?\d+:\$?\d+$/);
    }
    // Summary: the money per currency and direction, nothing stacked under it.
    const summary = valuesOf('Summary');
    const headerAt = summary.findIndex((r) => r[0] === 'currency');
    const header = summary[headerAt] as string[];
    expect(header.slice(0, 6)).toEqual(['currency', 'direction', 'gross', 'paid', 'fees', 'net']);
    expect(header).toEqual(expect.arrayContaining(['gross USDT', 'fees USDT', 'net USDT']));
    expect(summary.some((r) => r[0] === 'Roll-forward per currency')).toBe(false);
    const ordersCsv = csv('summary_orders.csv');
    const ws = wb.getWorksheet('Summary')!;
    ordersCsv.forEach((row, k) => {
      const cells = ws.getRow(headerAt + 1 + k); // getSheetValues is indexed by row number
      expect(cells.getCell(1).value).toBe(row.currency);
      for (const [label, column] of [
        ['gross', 'gross'],
        ['fees', 'fees'],
        ['net', 'net'],
        ['gross USDT', 'gross_usdt'],
        ['fees USDT', 'fees_usdt'],
        ['net USDT', 'net_usdt'],
      ]) {
        const cell = cells.getCell(header.indexOf(label) + 1);
        if (row[column] === '') continue;
        expect(new Decimal(String(cell.value)).equals(row[column]), `${row.currency} ${row.direction} ${label}`).toBe(true);
        if (label.endsWith('USDT')) expect(cell.numFmt, label).toBe('#,##0.000000');
      }
    });
    // A total row per currency carries the USDT of both directions added.
    const total = ordersCsv.find((x) => x.currency === 'INR' && x.direction === 'total')!;
    const parts = ordersCsv.filter((x) => x.currency === 'INR' && x.direction !== 'total' && x.net_usdt !== '');
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.reduce((a, x) => a.plus(x.net_usdt), new Decimal(0)).equals(total.net_usdt)).toBe(true);
    // The business date is a date cell, shown as a date.
    const date = wb.getWorksheet('Items')!.getRow(2).getCell(1);
    expect(date.type).toBe(ExcelJS.ValueType.Date);
    expect((date.value as Date).toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(date.numFmt).toBe('yyyy-mm-dd');
    // Wide enough for an IFSC code (11 characters) and a header beside its filter button.
    const items = wb.getWorksheet('Items')!;
    const itemsHeader = (items.getRow(1).values as string[]).slice(1);
    expect(items.getColumn(itemsHeader.indexOf('bank code') + 1).width).toBeGreaterThanOrEqual(14);
    itemsHeader.forEach((label, i) => expect(items.getColumn(i + 1).width, label).toBeGreaterThanOrEqual(label.length + 3));
  });

  it('types its cells: text ids keep leading zeros, amounts are formatted numbers, times are local date-times', () => {
    const items = wb.getWorksheet('Items')!;
    const header = (items.getRow(1).values as string[]).slice(1);
    const col = (label: string) => header.indexOf(label) + 1;
    const rows = csv('items.csv');
    let seen044 = false;
    for (let i = 0; i < rows.length; i++) {
      const row = items.getRow(i + 2);
      expect(row.getCell(col('merchant ref')).type).toBe(ExcelJS.ValueType.String);
      const amount = row.getCell(col('local amount'));
      expect(amount.type).toBe(ExcelJS.ValueType.Number);
      expect(amount.numFmt).toBe('#,##0.00');
      expect(row.getCell(col('created at')).type).toBe(ExcelJS.ValueType.Date);
      if (row.getCell(col('bank code')).value === '044') {
        seen044 = true;
        expect(row.getCell(col('bank code')).type).toBe(ExcelJS.ValueType.String);
      }
    }
    expect(seen044).toBe(true);
    // 2024-05-01T09:00:00Z is 14:30 in Kolkata: the cell holds the local wall-clock time.
    const p044 = items.getRows(2, rows.length)!.find((row) => row.getCell(col('bank code')).value === '044')!;
    expect((p044.getCell(col('created at')).value as Date).toISOString()).toBe('2024-05-01T14:30:00.000Z');
  });

  it('ends Items with a totals row per currency and direction: SUBTOTAL formulas over the success orders, equal to the Summary', () => {
    const items = wb.getWorksheet('Items')!;
    const header = (items.getRow(1).values as string[]).slice(1);
    expect(header.slice(0, 7)).toEqual(['business date', 'currency', 'direction', 'gross', 'paid', 'fee', 'net']);
    const rows = csv('items.csv');
    const orders = csv('summary_orders.csv').filter((x) => x.direction !== 'total' && Number(x.orders) > 0);
    expect(orders.length).toBeGreaterThan(1);
    const totalsStart = 2 + rows.length + 1; // header, data, one blank row
    const totals = items.getRows(totalsStart, orders.length)!;
    orders.forEach((o, k) => {
      const row = totals[k];
      expect([row.getCell(2).value, row.getCell(3).value]).toEqual([o.currency, o.direction]);
      for (const [label, column] of [
        ['gross', 'gross'],
        ['paid', 'paid'],
        ['fee', 'fees'],
        ['net', 'net'],
      ]) {
        const cell = row.getCell(header.indexOf(label) + 1);
        const value = cell.value as ExcelJS.CellFormulaValue;
        const name = `${o.currency} ${o.direction} ${label}`;
        // Follows the autofilter: SUBTOTAL(109) of each row, by OFFSET, where currency and direction match.
        expect(value.formula, name).toMatch(/^SUMPRODUCT\(SUBTOTAL\(109,OFFSET\(/);
        expect(value.formula, name).toContain(`="${o.currency}")`);
        expect(value.formula, name).toContain(`="${o.direction}")`);
        // exceljs leaves out a cached result of 0.
        expect(new Decimal(String(value.result ?? 0)).equals(o[column]), name).toBe(true);
        expect(cell.font?.bold).toBe(true);
      }
    });
    // The Summary sheet shows the same figures.
    const summary = wb.getWorksheet('Summary')!;
    const sHeaderRow = summary.getRows(1, 20)!.find((r) => r.getCell(1).value === 'currency')!;
    const sHeader = (sHeaderRow.values as string[]).slice(1);
    const sRows = summary.getRows(sHeaderRow.number + 1, 12)!;
    for (const o of orders) {
      const r = sRows.find((x) => x.getCell(1).value === o.currency && x.getCell(2).value === o.direction)!;
      expect(new Decimal(String(r.getCell(sHeader.indexOf('gross') + 1).value)).equals(o.gross)).toBe(true);
    }
  });

  it('shows the roll-forward and its timing items on sheets of their own, as in summary_rollforward.csv and timing_items.csv', () => {
    const valuesOf = (name: string) => Array.from(wb.getWorksheet(name)!.getSheetValues(), (v) => (Array.isArray(v) ? v.slice(1) : []));
    const rows = valuesOf('Roll-forward');
    const roll = rows.findIndex((r) => r[0] === 'Roll-forward per currency');
    expect(roll).toBeGreaterThanOrEqual(0);
    expect(rows[roll + 1]).toEqual(expect.arrayContaining(['timing items', 'timing movement']));
    const inr = rows.slice(roll + 2).find((r) => r[0] === 'INR')!;
    const header = rows[roll + 1] as string[];
    const rollCsv = csv('summary_rollforward.csv').find((x) => x.currency === 'INR')!;
    for (const [label, column] of [
      ['timing items', 'timing_items'],
      ['timing movement', 'timing_movement'],
      ['movement by orders', 'explained_movement'],
      ['explained by movements', 'movements'],
      ['expected closing', 'expected_closing'],
      ['drift', 'drift'],
    ])
      expect(new Decimal(String(inr[header.indexOf(label)])).equals(rollCsv[column]), label).toBe(true);
    const items = csv('timing_items.csv');
    expect(items.map((x) => x.merchant_ref)).toEqual(['M-MIDNIGHT']);
    const timingRows = valuesOf('Timing items');
    const timing = timingRows.findIndex((r) => r[0] === 'Timing items of the roll-forward');
    const listed = timingRows[timing + 2] as unknown[];
    expect(listed.slice(0, 4)).toEqual(['INR', 'payment', 980, 'M-MIDNIGHT']);
  });

  it('has as many Mismatches rows as mismatches.csv, with a signed difference', () => {
    const sheet = wb.getWorksheet('Mismatches')!;
    const rows = csv('mismatches.csv');
    const header = (sheet.getRow(1).values as string[]).slice(1);
    expect(header.slice(0, 4)).toEqual(['business date', 'currency', 'direction', 'gross']);
    const differences = sheet
      .getRows(2, rows.length)!
      .map((row) => row.getCell(header.indexOf('difference') + 1).value)
      .filter((v) => v !== null && v !== undefined);
    expect(differences.length).toBeGreaterThan(0);
    expect(differences.every((v) => typeof v === 'number')).toBe(true);
  });

  it.skipIf(requiresBrowser('report.html at 1,280 px in Chromium'))(
    'report.html at 1,280 px: no sideways scrolling, the money columns inside the viewport, files linked, every version listed',
    async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await page.goto(pathToFileURL(path.join(r.directory, 'report.html')).href);
        await page.screenshot({ path: screenshotPath('report-html-1280.png'), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
        // The right edge of every money column's header, in the summary and the mismatches.
        const MONEY = ['gross', 'paid', 'fees', 'net', 'difference', 'local amount', 'provider amount', 'provider fee', 'drift'];
        const edges = await page.$$eval(
          'table th',
          (ths, money) =>
            ths
              .filter((th) => money.includes(th.textContent ?? ''))
              .map((th) => ({ label: th.textContent, right: th.getBoundingClientRect().right })),
          MONEY,
        );
        expect(edges.map((e) => e.label)).toEqual(expect.arrayContaining(['gross', 'net', 'difference', 'provider fee']));
        for (const e of edges) expect(e.right, e.label!).toBeLessThanOrEqual(1280);
        // Each file of the version links to it, beside report.html.
        const links = await page.$$eval('#files a', (as) => as.map((a) => a.getAttribute('href')));
        expect(links).toEqual(expect.arrayContaining(['reconciliation.xlsx', 'journal.csv', 'items.csv']));
        expect(await page.$$eval('#versions tbody tr', (trs) => trs.length)).toBe(1);
      } finally {
        await browser.close();
      }
    },
  );

  it.skipIf(requiresBrowser('report.html renders its charts in Chromium'))(
    'report.html renders every chart in Chromium with no console errors',
    async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const errors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(e.message));
        // Self-contained: nothing may be fetched, so any request other than the file itself fails the test.
        const requests: string[] = [];
        page.on('request', (req) => requests.push(req.url()));
        const url = pathToFileURL(path.join(r.directory, 'report.html')).href;
        await page.goto(url);
        const charts = await page.$$eval('figure[data-chart]', (figs) =>
          figs.map((f) => {
            const svg = f.querySelector('svg');
            const box = svg?.getBoundingClientRect();
            // Data marks only (each bar is a path in a `g.mark-rect.role-mark` group), not axes or grid lines.
            return {
              name: f.getAttribute('data-chart'),
              bars: svg?.querySelectorAll('g.mark-rect.role-mark path').length ?? 0,
              width: box?.width ?? 0,
            };
          }),
        );
        expect(charts.map((c) => c.name)).toEqual(['mismatches-by-code', 'roll-forward', 'open-items-aging']);
        for (const c of charts) {
          expect(c.bars, c.name!).toBeGreaterThan(0);
          expect(c.width, c.name!).toBeGreaterThan(100);
        }
        expect(await page.textContent('h1')).toBe('Reconciliation 2024-05-01, version 1');
        // The roll-forward with its timing items in columns, and the timing items listed, as the page shows them.
        const cellsOf = (id: string) =>
          page.$$eval(`#${id} + div table tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('th,td')].map((c) => c.textContent ?? '')));
        const roll = await cellsOf('summary_rollforward');
        expect(roll[0]).toEqual(expect.arrayContaining(['timing items', 'timing movement', 'opening snapshot', 'closing snapshot']));
        // Money first, as in the workbook: the amounts, then the counts and the times.
        const inr = roll.find((row) => row[0] === 'INR')!;
        const byLabel = Object.fromEntries(roll[0].map((label, i) => [label, inr[i]]));
        expect(byLabel).toMatchObject({
          'opening snapshot': '2024-05-01 00:05:00 +05:30',
          opening: '10,500.00',
          'payments in': '490.00',
          'payouts out': '1,318.00',
          'movement by orders': '-828.00',
          'explained by movements': '0.00',
          'timing items': '1',
          'timing movement': '980.00',
          'expected closing': '10,652.00',
        });
        expect(roll[0].slice(0, 3)).toEqual(['currency', 'opening', 'payments in']);
        expect((await cellsOf('timing_items'))[1]).toEqual([
          'INR',
          'payment',
          '980.00',
          'M-MIDNIGHT',
          '2024-05-01 00:00:00 +05:30',
          '2024-05-01 05:30:00 +05:30',
          'opening',
          'yes',
        ]);
        expect(errors).toEqual([]);
        expect(requests).toEqual([url]);
        await page.screenshot({ path: screenshotPath('report-html.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    },
  );
});
