import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Table, TableColumn, TableRow } from '../src/tabular/table.ts';
import { decimalValue, significantDigits } from '../src/tabular/workbook/cells.ts';
import { ScaledSum } from '../src/money/scaled-sum.ts';
import { WorkbookFile } from '../src/tabular/workbook/writer.ts';
import { FIXED_DOS_DATE, FIXED_DOS_TIME } from '../src/tabular/workbook/zip.ts';

const COLUMNS: TableColumn[] = [
  { name: 'checked_at', kind: 'datetime' },
  { name: 'merchant_ref', kind: 'text' },
  { name: 'bank_code', kind: 'text' },
  { name: 'utr', kind: 'text' },
  { name: 'currency', kind: 'text' },
  { name: 'amount', kind: 'amount' },
  { name: 'difference', kind: 'amount' },
  { name: 'reason', kind: 'text' },
];

// 2026-11-22T10:15:30.000Z; in Asia/Kolkata (+05:30) the wall clock reads 15:45:30.
const T = Date.UTC(2026, 10, 22, 10, 15, 30);
const ROWS: TableRow[] = [
  [T, 'a-001', '044', '192358463048', 'INR', '250000.00', '-922752.47', 'short 922752.47'],
  [T, 'a-002', '023', null, 'NGN', '123456789012345.67', null, '=HYPERLINK("x")'],
  [T, 'a-003', '058', '000123', 'INR', '17.50', '0.50', ''],
  [null, 'a-004', null, null, 'NGN', '1000.00', null, null],
];

const SUMMARY: Table = {
  name: 'summary_orders',
  title: 'Orders',
  columns: [
    { name: 'currency', kind: 'text' },
    { name: 'orders', kind: 'count' },
    { name: 'gross', kind: 'amount' },
  ],
  rows: [
    ['INR', 1200, '1234567.50'],
    ['total', 1200, null],
  ],
  notes: ['net = paid − fees'],
};

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'payrecon-wb-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function write(name: string, opts: { rowLimit?: number; expectedRows?: number } = {}) {
  const file = path.join(dir, name);
  const wb = new WorkbookFile(file, { zone: 'Asia/Kolkata', created: new Date('2026-11-22T00:00:00Z') });
  wb.tableSheet('Summary', SUMMARY, ['Reconciliation of 2026-11-22']);
  const sheet = wb.sheet('Items', COLUMNS, { ...opts, fullFile: 'items.csv' });
  for (const r of ROWS) sheet.add(r);
  sheet.close();
  const result = await wb.close();
  return { file, result, dropped: sheet.droppedRows };
}

async function read(file: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  return wb;
}

describe('workbook cells', () => {
  it.each([
    ['250000.00', 2],
    ['0012.3400', 4],
    ['-922752.47', 8],
    ['123456789012345.67', 17],
    ['0.00', 0],
  ])('significantDigits(%s) = %i', (text, n) => expect(significantDigits(text)).toBe(n));

  it('keeps up to 15 significant digits as numbers and the rest as exact text', () => {
    expect(decimalValue('999999999999999.9')).toEqual({ text: '999999999999999.9' });
    expect(decimalValue('99999999999999.99')).toEqual({ text: '99999999999999.99' });
    expect(decimalValue('9999999999999.99')).toEqual({ number: 9999999999999.99 });
  });

  it('sums exactly with ScaledSum', () => {
    const s = new ScaledSum(2);
    for (const v of ['0.1', '0.2', '-0.05', '123456789012345.67']) s.add(v);
    expect(s.toString()).toBe('123456789012345.92');
  });

  it.each([
    { name: 'a value finer than the scale widens it', values: ['0.1', '0.005'], out: '0.105' },
    { name: 'the widened sum keeps adding exactly', values: ['1.25', '-0.004', '2.5', '0.0001'], out: '3.7461' },
    { name: 'the earlier running part is carried over', values: ['99999999999999.99', '0.001'], out: '99999999999999.991' },
    { name: 'a long value after widening', values: ['0.001', '123456789012345.67'], out: '123456789012345.671' },
    { name: 'trailing zeros do not widen', values: ['1.5000'], out: '1.50' },
  ])('ScaledSum: $name', ({ values, out }) => {
    const s = new ScaledSum(2);
    for (const v of values) s.add(v);
    expect(s.toString()).toBe(out);
  });
});

describe('reconciliation.xlsx', () => {
  it('reads back typed: text refs with leading zeros, numbers with formats, local date-times, exact text marked', async () => {
    const { file, result } = await write('typed.xlsx');
    expect(result.rows).toBe(ROWS.length + SUMMARY.rows.length);
    const wb = await read(file);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Summary', 'Items']);
    const ws = wb.getWorksheet('Items')!;
    // Money first (the keys, then the amounts), the rest in the table's order.
    expect(ws.getRow(1).values).toEqual([
      undefined,
      'currency',
      'amount',
      'difference',
      'checked at',
      'merchant ref',
      'bank code',
      'utr',
      'reason',
    ]);
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toEqual('A1:H5');

    const r2 = ws.getRow(2);
    expect(r2.getCell(4).type).toBe(ExcelJS.ValueType.Date);
    expect((r2.getCell(4).value as Date).toISOString()).toBe('2026-11-22T15:45:30.000Z');
    expect(r2.getCell(4).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(r2.getCell(6).value).toBe('044');
    expect(r2.getCell(6).type).toBe(ExcelJS.ValueType.String);
    expect(r2.getCell(7).value).toBe('192358463048');
    expect(r2.getCell(7).type).toBe(ExcelJS.ValueType.String);
    expect(r2.getCell(2).value).toBe(250000);
    expect(r2.getCell(2).numFmt).toBe('#,##0.00');
    expect(r2.getCell(3).value).toBe(-922752.47);

    const r3 = ws.getRow(3);
    expect(r3.getCell(2).type).toBe(ExcelJS.ValueType.String);
    expect(r3.getCell(2).value).toBe('123456789012345.67');
    expect(r3.getCell(2).fill).toMatchObject({ type: 'pattern' });
    // Text stays text in a workbook: no formula is ever written.
    expect(r3.getCell(8).type).toBe(ExcelJS.ValueType.String);
    expect(r3.getCell(8).value).toBe('=HYPERLINK("x")');
    expect(ws.getRow(4).getCell(7).value).toBe('000123');
  });

  it('ends each data sheet with a totals row per currency: SUBTOTAL formulas that follow the autofilter, the exact sums cached', async () => {
    const { file } = await write('totals.xlsx');
    const ws = (await read(file)).getWorksheet('Items')!;
    // header, 4 rows, blank, INR, NGN
    const inr = ws.getRow(7);
    const ngn = ws.getRow(8);
    expect(inr.getCell(1).value).toBe('INR');
    expect(inr.getCell(4).value).toBe('total');
    expect(inr.getCell(2).value).toEqual({
      formula: 'SUMPRODUCT(SUBTOTAL(109,OFFSET($B$2,ROW($B$2:$B$5)-ROW($B$2),0)),--($A$2:$A$5="INR"))',
      result: 250017.5,
    });
    expect((inr.getCell(3).value as ExcelJS.CellFormulaValue).result).toBe(-922751.97);
    expect(inr.getCell(2).font).toMatchObject({ bold: true });
    // More digits than a spreadsheet number holds: the exact sum as text, no formula.
    expect(ngn.getCell(2).value).toBe('123456789013345.67');
  });

  it('shows an amount finer than the minor unit with all its decimals, as a number, and totals it exactly', async () => {
    const file = path.join(dir, 'fine.xlsx');
    const wb = new WorkbookFile(file, { zone: 'Asia/Kolkata', created: new Date('2026-11-22T00:00:00Z') });
    wb.tableSheet('Summary', { ...SUMMARY, rows: [['INR', 1, '0.005']] });
    const sheet = wb.sheet('Items', COLUMNS);
    sheet.add([T, 'f-1', '044', null, 'INR', '0.005', '-0.004', '']);
    sheet.add([T, 'f-2', '044', null, 'INR', '250.50', '0.50', '']);
    sheet.close();
    await wb.close();
    const book = await read(file);
    const ws = book.getWorksheet('Items')!;
    const cases = [
      { name: 'half a minor unit', cell: ws.getRow(2).getCell(2), value: 0.005, numFmt: '#,##0.000' },
      { name: 'a negative below half a minor unit', cell: ws.getRow(2).getCell(3), value: -0.004, numFmt: '#,##0.000' },
      { name: 'an ordinary amount', cell: ws.getRow(3).getCell(2), value: 250.5, numFmt: '#,##0.00' },
      { name: 'the total of the amounts', cell: ws.getRow(5).getCell(2), value: 250.505, numFmt: '#,##0.000' },
      { name: 'the total of the differences', cell: ws.getRow(5).getCell(3), value: 0.496, numFmt: '#,##0.000' },
      { name: 'a summary amount', cell: book.getWorksheet('Summary')!.getRow(3).getCell(2), value: 0.005, numFmt: '#,##0.000' },
    ];
    for (const c of cases) {
      const formula = c.cell.type === ExcelJS.ValueType.Formula;
      expect(formula ? c.cell.result : c.cell.value, c.name).toBe(c.value);
      expect(c.cell.numFmt, c.name).toBe(c.numFmt);
    }
  });

  it('says in its first row when the sheet cannot hold every row, and points to the CSV', async () => {
    const { file, dropped } = await write('overflow.xlsx', { rowLimit: 36, expectedRows: 4 });
    expect(dropped).toBe(2);
    const ws = (await read(file)).getWorksheet('Items')!;
    expect(String(ws.getRow(1).getCell(1).value)).toMatch(/first 2 of 4 rows: a sheet holds at most 36\. Every row is in items\.csv\./);
    expect(ws.getRow(2).getCell(5).value).toBe('merchant ref');
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 2 });
  });

  it('gives the same bytes for the same data, with fixed zip timestamps', async () => {
    const a = await write('a.xlsx');
    const b = await write('b.xlsx');
    expect(b.result.sha256).toBe(a.result.sha256);
    // Every entry carries the fixed time, not the clock's (which two quick writes could share).
    const bytes = await fs.readFile(a.file);
    let entries = 0;
    for (let i = 0; i + 4 <= bytes.length; i++) {
      if (bytes.readUInt32LE(i) === 0x04034b50) {
        entries += 1;
        expect(bytes.readUInt16LE(i + 10)).toBe(FIXED_DOS_TIME);
        expect(bytes.readUInt16LE(i + 12)).toBe(FIXED_DOS_DATE);
      }
    }
    expect(entries).toBeGreaterThan(5);
  });
});

describe('sheets written at the same time', () => {
  it('streams one and spools the other, each complete, in the tab order asked for', async () => {
    const file = path.join(dir, 'together.xlsx');
    const wb = new WorkbookFile(file, {
      zone: 'UTC',
      created: new Date('2026-11-22T00:00:00Z'),
      order: ['Summary', 'Mismatches', 'Items'],
    });
    const items = wb.sheet('Items', COLUMNS);
    const mismatches = wb.sheet('Mismatches', COLUMNS);
    // Enough rows that both entries outgrow every stream buffer, so backpressure is exercised.
    for (let i = 0; i < 20_000; i++) {
      const row: TableRow = [T, `ref-${String(i).padStart(6, '0')}`, '044', null, 'INR', '10.00', null, 'x'.repeat(40)];
      await items.add(row);
      if (i % 4 === 0) await mismatches.add(row);
    }
    items.close();
    mismatches.close();
    wb.tableSheet('Summary', SUMMARY);
    await wb.close();
    expect((await fs.readdir(dir)).filter((f) => f.startsWith('together.xlsx.'))).toEqual([]);
    const book = await read(file);
    expect(book.worksheets.map((w) => w.name)).toEqual(['Summary', 'Mismatches', 'Items']);
    expect(book.getWorksheet('Items')!.getRow(20_001).getCell(5).value).toBe('ref-019999');
    expect(book.getWorksheet('Mismatches')!.getRow(5_001).getCell(5).value).toBe('ref-019996');
    expect(book.getWorksheet('Mismatches')!.autoFilter).toBe('A1:H5001');
    expect((book.getWorksheet('Items')!.getRow(20_003).getCell(2).value as ExcelJS.CellFormulaValue).result).toBe(200000);
  });
});
