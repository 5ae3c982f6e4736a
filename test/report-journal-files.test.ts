import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { buildJournal, type JournalDayInput } from '../src/recon/journal.ts';
import type { JournalEntry } from '../src/recon/journal-types.ts';
import { postingEntries, type PostingEntry } from '../src/recon/posting.ts';
import { csvCells, csvHeader } from '../src/report/csv-cells.ts';
import {
  baseRateOf,
  journalTable,
  quickbooksTable,
  xeroTables,
  XERO_MAX_LINES,
  type JournalRenderOptions,
} from '../src/report/journal-tables.ts';
import type { Table } from '../src/tabular/table.ts';

const DAY: JournalDayInput = {
  date: '2026-03-10',
  currency: 'NGN',
  rollForward: {
    opening: '1000000',
    closing: '1018825.24',
    payments: { paidAmount: '25000.50', fee: '375.01', count: 1 },
    payouts: { amount: '10000.25', fee: '50', count: 1 },
    timingItems: [{ direction: 'payment', merchantRef: 'T-IN', effect: '3000', assignedIn: true }],
    drift: '1250',
  },
  rate: { deposit: '1530.5', withdraw: '1545.25' },
};
const OPTS: JournalRenderOptions = {
  accounts: { 'wallet:NGN': { code: '1211', name: 'Provider wallet NGN' } },
  base: 'USD',
  rates: new Map([['NGN', DAY.rate!]]),
  xeroTaxRate: 'Tax Exempt',
  baseRates: new Map(),
  usdtAtPar: true,
};
const cells = (t: Table) => t.rows.map((r) => csvCells(t.columns, r, String));
// Map.groupBy is Node 21+; this runs on Node 20 too.
const groups = <T>(rows: T[], key: (r: T) => string) => {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
  return m;
};

// As a day's first posting file writes them: every entry new, numbered in order.
const asPosting = (entries: readonly JournalEntry[]): PostingEntry[] =>
  postingEntries(entries, new Map(), { date: '2026-03-10', version: 1, postedOn: '2026-03-11', dayPostedIn: null }, 'day:2026-03-10:');

describe('journal files', () => {
  const { entries } = buildJournal(DAY);
  const posting = asPosting(entries);

  it('journal.csv: the columns accounting asked for, one of debit/credit per line, accounts from the setting', () => {
    const t = journalTable(entries, OPTS);
    expect(csvHeader(t.columns)).toEqual([
      'entry_id',
      'date',
      'currency',
      'role',
      'account_code',
      'account_name',
      'debit',
      'credit',
      'usdt_rate',
      'usdt_debit',
      'usdt_credit',
      'description',
      'source_ref',
      'posted_in',
    ]);
    const wallet = cells(t).find((r) => r[3] === 'wallet')!;
    expect(wallet.slice(4, 8)).toEqual(['1211', 'Provider wallet NGN', '24625.49', '']);
    expect(
      cells(t)
        .find((r) => r[3] === 'fees')!
        .slice(4, 6),
    ).toEqual(['6110', 'Provider fees']);
  });

  it('journal_xero.csv: Xero’s header, debit positive and credit negative, dd/mm/yyyy, each Narration+Date a journal summing to zero', () => {
    const { tables, skipped } = xeroTables(posting, OPTS);
    expect(skipped).toEqual([]);
    expect(tables.map((t) => t.name)).toEqual(['journal_xero']);
    const t = tables[0];
    expect(csvHeader(t.columns)).toEqual(['Narration', 'Date', 'Description', 'AccountCode', 'TaxRate', 'Amount']);
    const rows = cells(t);
    expect(new Set(rows.map((r) => r[1]))).toEqual(new Set(['10/03/2026']));
    expect(rows.every((r) => r[4] === 'Tax Exempt')).toBe(true);
    // Payments: wallet debit (+), payments clearing credit (−), in USDT at the deposit rate.
    const pay = rows.filter((r) => r[0].startsWith('20260310v1-001 '));
    expect(pay.find((r) => r[3] === '1211')![5]).toBe('16.09');
    expect(pay.find((r) => r[3] === '2220')![5]).toBe('-16.33');
    for (const [, journal] of groups(rows, (r) => `${r[0]}|${r[1]}`)) {
      expect(journal.reduce((a, r) => a.plus(r[5]), new Decimal(0)).toFixed()).toBe('0');
    }
  });

  it('journal_xero.csv in a local base currency: that currency exact, the rate stated per line', () => {
    const { tables } = xeroTables(posting, { ...OPTS, base: 'NGN' });
    const rows = cells(tables[0]);
    expect(rows.find((r) => r[3] === '1211')![5]).toBe('24625.49');
  });

  it(`journal_xero.csv past ${XERO_MAX_LINES} lines splits at journal boundaries into journal_xero_2.csv, …`, () => {
    // 200 timing items: one journal of 400 lines cannot be split; the others fit in files of ≤ 300.
    const many = buildJournal({
      ...DAY,
      late: Array.from({ length: 200 }, (_, i) => ({
        kind: 'reversal' as const,
        direction: 'payment' as const,
        merchantRef: `R-${i}`,
        orderId: String(i),
        originalDate: '2026-03-01',
        countedOn: '2026-03-01',
        observedAt: '2026-03-10T12:00:00.000Z',
        walletEffect: '-1',
      })),
      rollForward: { ...DAY.rollForward, drift: '1050' },
    });
    const { tables } = xeroTables(asPosting(many.entries), { ...OPTS, base: 'NGN' });
    expect(tables.map((t) => t.name)).toEqual(['journal_xero', 'journal_xero_2']);
    const narrations = tables.map((t) => new Set(cells(t).map((r) => r[0])));
    for (const t of tables) expect(t.rows.length).toBeLessThanOrEqual(XERO_MAX_LINES);
    for (const n of narrations[1]) expect(narrations[0].has(n)).toBe(false);
    expect(tables.reduce((a, t) => a + t.rows.length, 0)).toBe(
      many.entries.reduce((a, e) => a + e.lines.filter((l) => l.role !== 'rounding').length, 0),
    );
  });

  it('journal_quickbooks.csv: QuickBooks’ header, one of Debits/Credits per line, MM/DD/YYYY, entries balance, currency and exchange rate', () => {
    const t = quickbooksTable(posting, { ...OPTS, accounts: {} });
    // Only the columns Intuit documents for a journal entry import.
    expect(csvHeader(t.columns)).toEqual(['Journal No.', 'Journal Date', 'Account Name', 'Debits', 'Credits', 'Description', 'Name']);
    const rows = cells(t);
    expect(rows.every((r) => (r[3] === '') !== (r[4] === ''))).toBe(true);
    expect(rows.every((r) => r[1] === '03/10/2026' && r[0].length <= 21)).toBe(true);
    // The wallet is an account per currency; amounts in the home currency with the rate and its source.
    const wallet = rows.filter((r) => r[2].startsWith('Provider wallet'));
    expect(new Set(wallet.map((r) => r[2]))).toEqual(new Set(['Provider wallet NGN']));
    expect(wallet[0][5]).toContain('USD/NGN: the provider’s 1530.5 NGN/USDT, USDT at par with USD');
    for (const [, entry] of groups(rows, (r) => r[0])) {
      expect(entry.reduce((a, r) => a.plus(r[3] || '0').minus(r[4] || '0'), new Decimal(0)).toFixed()).toBe('0');
    }
  });

  it('a rate from JOURNAL_RATES_FILE wins and is named on the line; no rate at all: the entry cannot be converted (held back)', () => {
    const withFile = {
      ...OPTS,
      usdtAtPar: false,
      baseRates: new Map([['2026-03-10:NGN', { rate: '0.0006', source: 'JOURNAL_RATES_FILE row 7' }]]),
    };
    const rows = cells(xeroTables(posting, withFile).tables[0]);
    const wallet = rows.find((r) => r[0].startsWith('20260310v1-001 ') && r[3] === '1211')!;
    expect(wallet[5]).toBe('14.78'); // 24,625.49 × 0.0006
    expect(wallet[2]).toContain('at 0.0006 USD/NGN: JOURNAL_RATES_FILE row 7');
    expect(baseRateOf(entries[0], { ...OPTS, usdtAtPar: false })).toBeNull();
    expect(baseRateOf(entries[0], { ...OPTS, base: 'EUR' })).toBeNull(); // at par is with USD only
    expect(baseRateOf(entries[0], { ...OPTS, base: 'NGN', usdtAtPar: false })).toEqual({ rate: '1', source: 'the base currency' });
    expect(xeroTables(posting, { ...OPTS, usdtAtPar: false }).skipped).toEqual(entries.map((e) => e.id));
  });
});
