// The journal written by the report (issue 27): late changes posted on the day observed, naming the
// original day and order; the fee difference against the contract; the wallet lines tying to the
// roll-forward; every entry balanced. Two business days in UTC on real Postgres, through writeReports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { writeReports, type WriteReportsOptions } from '../src/report/write-reports.ts';
import { Decimal } from '../src/money/decimal.ts';

const D1 = `
INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '2024-05-01T10:00:00Z', 'completed'),
  (2, 'reconcile', '2024-05-02T11:00:00Z', 'completed');
INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, provider_paid_amount, provider_fee,
  status, status_category, created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
  (1, 'P-REV', 'T-1', 'INR', 'NATIVE', 1000, 1000, 20, 1000, 20, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 1000, '2024-05-01T09:00:00Z'),
  (2, 'P-FEE', 'T-2', 'INR', 'NATIVE', 500, 500, 10, 500, 10, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 500, '2024-05-01T09:00:00Z');
INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
  local_status, local_category, local_amount, local_paid_amount, local_fee, provider_status, provider_category, provider_amount,
  provider_paid_amount, provider_fee, verdict, codes, reason) VALUES
  (1, 'payment', 1, 'P-REV', 'T-1', 'INR', 'NATIVE', '2024-05-01T10:00:00Z', 'Success', 'success', 1000, 1000, 20,
   'Success', 'success', 1000, 1000, 20, 'matched', '{}', ''),
  (1, 'payment', 2, 'P-FEE', 'T-2', 'INR', 'NATIVE', '2024-05-01T10:00:00Z', 'Success', 'success', 500, 500, 10,
   'Success', 'success', 500, 500, 10, 'matched', '{}', '');
INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
  ('INR', 10000, 0, 0, 0, '2024-05-01T00:00:00Z'),
  ('INR', 11470, 0, 0, 0, '2024-05-01T23:00:00Z');
INSERT INTO rate_snapshots (currency, deposit, withdraw, taken_at, flags) VALUES ('INR', 83, 84, '2024-05-01T12:00:00Z', '{}');`;

// Day 2: P-REV reversed (the balance gives back 980), P-FEE's fee raised from 10 to 25 (−15), a new
// UPI payment charged 50 where the contract (2%) says 40, and the balance read at noon.
const D2 = `
-- The provider's success seen on day 1 stays where it was counted: the reversal is day 2's own event.
UPDATE payment_orders SET status = 'Reversed', status_category = 'failed', provider_category = 'failed' WHERE id = 1;
UPDATE payment_orders SET provider_fee = 25 WHERE id = 2;
INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, provider_paid_amount, provider_fee,
  status, status_category, created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
  (3, 'P-SCHED', 'T-3', 'INR', 'UPI', 2000, 2000, 50, 2000, 50, 'Success', 'success', '2024-05-02T08:00:00Z', '2024-05-02T09:00:00Z', 'success', 2000, '2024-05-02T09:00:00Z');
INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
  local_status, local_category, local_amount, local_paid_amount, local_fee, provider_status, provider_category, provider_amount,
  provider_paid_amount, provider_fee, verdict, codes, reason) VALUES
  (2, 'payment', 1, 'P-REV', 'T-1', 'INR', 'NATIVE', '2024-05-02T11:00:00Z', 'Success', 'success', 1000, 1000, 20,
   'Reversed', 'failed', 1000, 1000, 20, 'mismatch', '{STATUS}', 'provider says Reversed'),
  (2, 'payment', 2, 'P-FEE', 'T-2', 'INR', 'NATIVE', '2024-05-02T11:00:00Z', 'Success', 'success', 500, 500, 10,
   'Success', 'success', 500, 500, 25, 'mismatch', '{FEE}', 'fee recorded 10.00, provider 25.00'),
  (2, 'payment', 3, 'P-SCHED', 'T-3', 'INR', 'UPI', '2024-05-02T11:00:00Z', 'Success', 'success', 2000, 2000, 50,
   'Success', 'success', 2000, 2000, 50, 'mismatch', '{FEE_SCHEDULE}', 'fee 50.00, contract expects 40.00');
INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES ('INR', 12425, 0, 0, 0, '2024-05-02T12:00:00Z');
INSERT INTO rate_snapshots (currency, deposit, withdraw, taken_at, flags) VALUES ('INR', 80, 81, '2024-05-02T12:00:00Z', '{}');`;

type Line = Record<string, string>;
function readCsv(file: string): Line[] {
  const [head, ...rows] = fs
    .readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/);
  // The journal's values here hold no quoted separators but the descriptions; split on commas outside quotes.
  const split = (l: string) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
  const names = split(head);
  return rows.map((r) => Object.fromEntries(split(r).map((v, i) => [names[i], v])));
}
const sum = (lines: Line[], f: (l: Line) => string) => lines.reduce((a, l) => a.plus(f(l) || '0'), new Decimal(0));
// Not Map.groupBy: Node 20 lacks it.
function groupBy(lines: Line[], key: (l: Line) => string): Map<string, Line[]> {
  const out = new Map<string, Line[]>();
  for (const l of lines) out.set(key(l), [...(out.get(key(l)) ?? []), l]);
  return out;
}
const signed = (l: Line) => new Decimal(l.debit || '0').minus(l.credit || '0');

describe.skipIf(requiresServer('the report takes the date lock on a connection of its own'))('the journal of a report version', () => {
  let t: TestDatabase;
  let reportDir: string;
  const options = (date: string): WriteReportsOptions => ({
    date,
    timezone: 'UTC',
    reportDir,
    now: new Date('2024-05-03T01:00:00Z'),
    currencies: ['INR'],
    feeSchedule: { INR: { payment: { UPI: { percent: '2', fixed: '0' } } } },
    journal: { accounts: {}, base: 'USD', baseRates: new Map(), usdtAtPar: true, xeroTaxRate: 'Tax Exempt' },
  });
  let day1: Line[];
  let day2: Line[];
  let dir2: string;

  beforeAll(async () => {
    t = await createTestDatabase('report_journal', { engine: 'postgres' });
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-journal-'));
    await t.db.knex.raw(D1);
    const v1 = await writeReports(t.db, options('2024-05-01'));
    day1 = readCsv(path.join(v1.directory, 'journal.csv'));
    await t.db.knex.raw(D2);
    const v2 = await writeReports(t.db, options('2024-05-02'));
    dir2 = v2.directory;
    day2 = readCsv(path.join(dir2, 'journal.csv'));
  }, 120_000);
  afterAll(async () => {
    await t?.drop();
  });

  it('every entry balances in its currency and in USDT', () => {
    for (const lines of [day1, day2]) {
      const ids = [...new Set(lines.map((l) => l.entry_id))];
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        const entry = lines.filter((l) => l.entry_id === id);
        expect(sum(entry, (l) => signed(l).toFixed()).toFixed(), id).toBe('0');
        expect(sum(entry, (l) => new Decimal(l.usdt_debit || '0').minus(l.usdt_credit || '0').toFixed()).toFixed(), id).toBe('0');
      }
    }
  });

  it("the wallet lines sum to the roll-forward's closing − opening on each day, and the days tile", () => {
    const wallet = (lines: Line[]) =>
      sum(
        lines.filter((l) => l.role === 'wallet'),
        (l) => signed(l).toFixed(),
      );
    expect(wallet(day1).toFixed(2)).toBe('1470.00'); // 11,470 − 10,000
    expect(wallet(day2).toFixed(2)).toBe('955.00'); // 12,425 − 11,470: day 1's closing opens day 2
    const rf = readCsv(path.join(dir2, 'summary_rollforward.csv'))[0];
    expect(new Decimal(rf.closing).minus(rf.opening).toFixed(2)).toBe('955.00');
  });

  it('a late reversal and a fee correction post on the day observed, as entries naming the original day and order', () => {
    expect(day1.filter((l) => l.role === 'reversal' || l.role === 'fee_correction')).toEqual([]);
    const reversal = day2.filter((l) => l.entry_id === '2024-05-02-INR-reversal-P-REV');
    expect(reversal.map((l) => [l.date, l.role, l.debit, l.credit, l.source_ref])).toEqual([
      ['2024-05-02', 'wallet', '', '980.00', 'P-REV'],
      ['2024-05-02', 'reversal', '980.00', '', 'P-REV'],
    ]);
    expect(reversal[0].description).toContain('reversal of payment P-REV of 2024-05-01');
    const fee = day2.filter((l) => l.entry_id === '2024-05-02-INR-fee_correction-P-FEE');
    expect(fee.map((l) => [l.role, l.debit, l.credit])).toEqual([
      ['wallet', '', '15.00'],
      ['fee_correction', '15.00', ''],
    ]);
    expect(fee[0].description).toContain('fee correction of payment P-FEE of 2024-05-01');
    // Both explain the balance's fall: nothing left for suspense.
    expect(day2.filter((l) => l.role === 'suspense')).toEqual([]);
  });

  it('a late change checked again on a later day is not posted again there (late_changes.csv still lists it)', async () => {
    await t.db.knex.raw(`
      INSERT INTO job_runs (id, job, started_at, status) VALUES (3, 'reconcile', '2024-05-03T11:00:00Z', 'completed');
      INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
        local_status, local_category, local_amount, local_paid_amount, local_fee, provider_status, provider_category, provider_amount,
        provider_paid_amount, provider_fee, verdict, codes, reason)
      SELECT 3, direction, order_id, merchant_ref, transaction_ref, currency, method, '2024-05-03T11:00:00Z',
             local_status, local_category, local_amount, local_paid_amount, local_fee, provider_status, provider_category, provider_amount,
             provider_paid_amount, provider_fee, verdict, codes, reason
        FROM recon_items WHERE checked_at = '2024-05-02T11:00:00Z' AND order_id IN (1, 2);
      INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES ('INR', 12425, 0, 0, 0, '2024-05-03T12:00:00Z');`);
    const v = await writeReports(t.db, { ...options('2024-05-03'), now: new Date('2024-05-04T01:00:00Z') });
    expect(readCsv(path.join(v.directory, 'late_changes.csv')).map((l) => l.merchant_ref)).toEqual(['P-FEE', 'P-REV']);
    const day3 = readCsv(path.join(v.directory, 'journal.csv'));
    expect(day3.filter((l) => l.role === 'reversal' || l.role === 'fee_correction')).toEqual([]);
    expect(day3).toEqual([]); // nothing moved: no entry at all
  });

  it('the fee above the contract moves out of fees into its own account', () => {
    const diff = day2.filter((l) => l.entry_id === '2024-05-02-INR-fee-difference');
    expect(diff.map((l) => [l.role, l.debit, l.credit, l.source_ref])).toEqual([
      ['fee_difference', '10.00', '', '1 order'],
      ['fees', '', '10.00', '1 order'],
    ]);
    const summary = readCsv(path.join(dir2, 'summary_journal.csv'));
    expect(summary).toMatchObject([{ currency: 'INR', wallet_movement: '955.00', suspense: '0.00', fee_difference: '10.00' }]);
  });

  it('writes the Xero and QuickBooks files beside it, each journal summing to zero', () => {
    const xero = readCsv(path.join(dir2, 'journal_xero.csv'));
    const byNarration = groupBy(xero, (l) => l.Narration);
    expect(byNarration.size).toBe(new Set(day2.map((l) => l.entry_id)).size);
    for (const [n, lines] of byNarration) expect(sum(lines, (l) => l.Amount).toFixed(), n).toBe('0');
    const qb = readCsv(path.join(dir2, 'journal_quickbooks.csv'));
    for (const [n, lines] of groupBy(qb, (l) => l['Journal No.']))
      expect(sum(lines, (l) => new Decimal(l.Debits || '0').minus(l.Credits || '0').toFixed()).toFixed(), n).toBe('0');
  });
});
