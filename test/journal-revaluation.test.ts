// Month-end revaluation (issue 37, JOURNAL_FX_REVALUATION=on): the report of a month's last day
// restates each wallet's USDT value at the day's closing rate and reverses it on the first day of
// the next month, both posted once, through the posting files like every other entry.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { writeReports, type WriteReportsResult } from '../src/report/write-reports.ts';
import { Decimal } from '../src/money/decimal.ts';
import { isMonthEnd, revaluationEntries } from '../src/recon/journal-revaluation.ts';
import { readJournalCsv, sumBy, type CsvLine } from './helpers/journal-csv.ts';

const NEEDS = 'the report takes the date lock on a connection of its own';

const ITEM_COLUMNS = `run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
  local_status, local_category, local_amount, local_paid_amount, local_fee, provider_status, provider_category, provider_amount,
  provider_paid_amount, provider_fee, verdict, codes, reason`;

const usdt = (l: CsvLine) => new Decimal(l.usdt_debit || '0').minus(l.usdt_credit || '0').toFixed();

describe('the revaluation entry and its reversal (pure)', () => {
  it('month ends, leap February included', () => {
    expect(['2024-05-31', '2024-02-29', '2026-12-31'].map(isMonthEnd)).toEqual([true, true, true]);
    expect(['2024-05-30', '2026-02-28', '2024-06-01'].map(isMonthEnd)).toEqual([false, true, false]);
  });

  it('restates the wallet at the closing rate (withdraw side), reversed on the 1st; nothing when unchanged or without a rate', () => {
    const [reval, reversal] = revaluationEntries('2024-05-31', 'INR', { amount: '980', usdt: '12.25' }, { deposit: '97', withdraw: '98' });
    expect([reval.key, reval.date, reval.kind]).toEqual(['fx_revaluation:2024-05:INR', '2024-05-31', 'fx_revaluation']);
    expect(reval.lines.map((l) => [l.role, l.amount, l.usdt, l.usdtRate])).toEqual([
      ['wallet', '0', '-2.250000', '98'],
      ['fx_revaluation', '0', '2.250000', '98'],
    ]);
    expect([reversal.key, reversal.date]).toEqual(['fx_revaluation_reversal:2024-05:INR', '2024-06-01']);
    expect(reversal.lines.map((l) => [l.role, l.usdt])).toEqual([
      ['wallet', '2.250000'],
      ['fx_revaluation', '-2.250000'],
    ]);
    expect(revaluationEntries('2024-05-31', 'INR', { amount: '980', usdt: '10' }, { deposit: '97', withdraw: '98' })).toEqual([]);
    expect(revaluationEntries('2024-05-31', 'INR', { amount: '980', usdt: '12.25' }, null)).toEqual([]);
    expect(revaluationEntries('2024-05-31', 'INR', { amount: '980', usdt: null }, { deposit: '97', withdraw: '98' })).toEqual([]);
  });
});

describe.skipIf(requiresServer(NEEDS))('JOURNAL_FX_REVALUATION=on over a month end', () => {
  let t: TestDatabase;
  let reportDir: string;
  const written: WriteReportsResult[] = [];
  const report = async (date: string, now: string, force = false) => {
    const r = await writeReports(t.db, {
      date,
      timezone: 'UTC',
      reportDir,
      now: new Date(now),
      currencies: ['INR'],
      force,
      journal: { accounts: {}, base: 'USD', baseRates: new Map(), usdtAtPar: true, xeroTaxRate: 'Tax Exempt', fxRevaluation: true },
    });
    written.push(r);
    return r;
  };
  const posting = (i: number) => readJournalCsv(path.join(written[i].directory, 'journal_posting.csv'));

  beforeAll(async () => {
    t = await createTestDatabase('h37_fx_reval', { engine: 'postgres' });
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-reval-'));
    // 05-30: a payment of 1,000 INR, fee 20, at 80 INR/USDT (12.25 USDT in the wallet); 05-31: nothing
    // moves, the closing rate is 98 INR/USDT (the 980 INR are 10 USDT).
    await t.db.knex.raw(`
      INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '2024-05-30T10:00:00Z', 'completed');
      INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, provider_paid_amount, provider_fee,
        status, status_category, created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
        (1, 'P-1', 'T-1', 'INR', 'NATIVE', 1000, 1000, 20, 1000, 20, 'Success', 'success', '2024-05-30T08:00:00Z', '2024-05-30T09:00:00Z', 'success', 1000, '2024-05-30T09:00:00Z');
      INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
        (1, 'payment', 1, 'P-1', 'T-1', 'INR', 'NATIVE', '2024-05-30T10:00:00Z', 'Success', 'success', 1000, 1000, 20,
         'Success', 'success', 1000, 1000, 20, 'matched', '{}', '');
      INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
        ('INR', 10000, 0, 0, 0, '2024-05-30T00:00:00Z'), ('INR', 10980, 0, 0, 0, '2024-05-30T23:00:00Z'),
        ('INR', 10980, 0, 0, 0, '2024-05-31T23:00:00Z');
      INSERT INTO rate_snapshots (currency, deposit, withdraw, taken_at, flags) VALUES
        ('INR', 80, 80, '2024-05-30T12:00:00Z', '{}'), ('INR', 97, 98, '2024-05-31T12:00:00Z', '{}');`);
    await report('2024-05-30', '2024-05-31T01:00:00Z');
    await report('2024-05-31', '2024-06-01T01:00:00Z');
    await report('2024-05-31', '2024-06-01T02:00:00Z', true);
  }, 120_000);
  afterAll(async () => {
    await t?.drop();
  });

  it('the day before month end posts no revaluation', () => {
    expect(posting(0).some((l) => l.role === 'fx_revaluation')).toBe(false);
    expect(
      sumBy(
        posting(0).filter((l) => l.role === 'wallet'),
        usdt,
      ).toFixed(),
    ).toBe('12.25');
  });

  it('the month’s last day: the revaluation dated 05-31 and its reversal dated 06-01, each balanced in USDT', () => {
    const lines = posting(1).filter((l) => l.role === 'fx_revaluation' || l.entry_id.includes('fx-revaluation'));
    expect(lines.map((l) => [l.entry_id, l.date, l.role, l.debit, l.credit, usdt(l)])).toEqual([
      ['2024-05-31-INR-fx-revaluation', '2024-05-31', 'wallet', '', '', '-2.25'],
      ['2024-05-31-INR-fx-revaluation', '2024-05-31', 'fx_revaluation', '', '', '2.25'],
      ['2024-06-01-INR-fx-revaluation-reversal', '2024-06-01', 'wallet', '', '', '2.25'],
      ['2024-06-01-INR-fx-revaluation-reversal', '2024-06-01', 'fx_revaluation', '', '', '-2.25'],
    ]);
    expect(new Set(lines.map((l) => l.posting_id)).size).toBe(2);
    // As of the month end (the reversal not yet), the wallet is worth 980 ÷ 98 = 10 USDT.
    const monthEnd = [...posting(0), ...posting(1)].filter((l) => l.role === 'wallet' && l.date <= '2024-05-31');
    expect(sumBy(monthEnd, usdt).toFixed()).toBe('10');
  });

  it('in USD (USDT at par) the Xero file carries it: wallet 1211 −2.25 against 7920 +2.25, then the reverse', () => {
    const xero = readJournalCsv(path.join(written[1].directory, 'journal_xero.csv'));
    expect(xero.map((l) => [l.Date, l.AccountCode, l.Amount])).toEqual([
      ['31/05/2024', '1211', '-2.25'],
      ['31/05/2024', '7920', '2.25'],
      ['01/06/2024', '1211', '2.25'],
      ['01/06/2024', '7920', '-2.25'],
    ]);
  });

  it('a forced rerun of the month end posts it again nowhere', () => {
    expect(written[2].unchanged).toBe(false);
    expect(posting(2).filter((l) => l.entry_id.includes('fx-revaluation'))).toEqual([]);
  });
});
