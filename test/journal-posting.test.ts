// Posting over time (issue 37): post every posting file payrecon writes, once each, in the order
// written, and the books are right. Two stories an accountant tried, on real Postgres through
// writeReports: a reversal seen after its day was rerun, and a fee correction seen on D+1 with D
// rewritten on D+2 and D+2 forced again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { writeReports, type WriteReportsOptions, type WriteReportsResult } from '../src/report/write-reports.ts';
import { listPostings, trialBalance } from '../src/db/journal-postings.ts';
import { Decimal } from '../src/money/decimal.ts';
import { readJournalCsv, signed, sumBy, type CsvLine } from './helpers/journal-csv.ts';

const NEEDS = 'the report takes the date lock on a connection of its own';

const ITEM_COLUMNS = `run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
  local_status, local_category, local_amount, local_paid_amount, local_fee, provider_status, provider_category, provider_amount,
  provider_paid_amount, provider_fee, verdict, codes, reason`;

/** The posting files of every version written, in the order written: the ledger's input. */
function postingLines(results: readonly WriteReportsResult[]): CsvLine[][] {
  return results.filter((r) => !r.unchanged).map((r) => readJournalCsv(path.join(r.directory, 'journal_posting.csv')));
}

const total = (files: CsvLine[][], role: string) =>
  sumBy(
    files.flat().filter((l) => l.role === role),
    (l) => signed(l).toFixed(),
  ).toFixed(2);

describe.skipIf(requiresServer(NEEDS))('a reversal seen after its day was rerun', () => {
  let t: TestDatabase;
  let reportDir: string;
  const written: WriteReportsResult[] = [];
  const report = async (date: string, now: string, force = false) => {
    const r = await writeReports(t.db, { date, timezone: 'UTC', reportDir, now: new Date(now), currencies: ['INR'], force });
    written.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await createTestDatabase('h37_posting_rev', { engine: 'postgres' });
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-posting-'));
    await t.db.knex.raw(`
      INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '2024-05-01T10:00:00Z', 'completed'),
        (2, 'reconcile', '2024-05-02T11:00:00Z', 'completed');
      INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, provider_paid_amount, provider_fee,
        status, status_category, created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
        (1, 'P-REV', 'T-1', 'INR', 'NATIVE', 1000, 1000, 20, 1000, 20, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 1000, '2024-05-01T09:00:00Z');
      INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
        (1, 'payment', 1, 'P-REV', 'T-1', 'INR', 'NATIVE', '2024-05-01T10:00:00Z', 'Success', 'success', 1000, 1000, 20,
         'Success', 'success', 1000, 1000, 20, 'matched', '{}', '');
      INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
        ('INR', 10000, 0, 0, 0, '2024-05-01T00:00:00Z'), ('INR', 10980, 0, 0, 0, '2024-05-01T23:00:00Z');`);
    await report('2024-05-01', '2024-05-02T01:00:00Z');
    // The provider reverses P-REV during 05-02 (the balance gives back 980); a rerun of 05-01
    // (reconcile --date 2024-05-01) sees it at 11:00. The merchant's final status never moves back.
    await t.db.knex.raw(`
      UPDATE payment_orders SET provider_category = 'failed' WHERE id = 1;
      INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
        (2, 'payment', 1, 'P-REV', 'T-1', 'INR', 'NATIVE', '2024-05-02T11:00:00Z', 'Success', 'success', 1000, 1000, 20,
         'Reversed', 'failed', 1000, 1000, 20, 'mismatch', '{STATUS}', 'provider says Reversed');
      INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES ('INR', 10000, 0, 0, 0, '2024-05-02T12:00:00Z');`);
    // The rerun's report of 05-01 (v2), written before 05-02's first report.
    await report('2024-05-01', '2024-05-02T13:00:00Z');
    await report('2024-05-02', '2024-05-03T01:00:00Z');
  }, 120_000);
  afterAll(async () => {
    await t?.drop();
  });

  it('three versions written, each with its posting file', () => {
    expect(written.map((r) => [r.manifest.business_date, r.version, r.unchanged])).toEqual([
      ['2024-05-01', 1, false],
      ['2024-05-01', 2, false],
      ['2024-05-02', 1, false],
    ]);
  });

  it('exactly one reversal entry across all posting files, posted by the first file written after the check saw it', () => {
    const files = postingLines(written);
    const reversals = files.map((f) => f.filter((l) => l.role === 'reversal'));
    expect(reversals.map((r) => r.length)).toEqual([0, 1, 0]);
    expect(reversals[1][0]).toMatchObject({ debit: '980.00', date: '2024-05-02', source_ref: 'P-REV' });
    expect(total(files, 'reversal')).toBe('980.00');
  });

  it('suspense returns to zero and the wallet equals the provider balance at the last close', () => {
    const files = postingLines(written);
    expect(total(files, 'suspense')).toBe('0.00');
    // Opening 10,000 posted once outside payrecon: the wallet's movements take it to 10,000 again.
    expect(total(files, 'wallet')).toBe('0.00');
    for (const f of files) for (const [id, lines] of byEntry(f)) expect(sumBy(lines, (l) => signed(l).toFixed()).toFixed(), id).toBe('0');
  });

  it('the rerun restates nothing of 05-01: its v2 posts only the reversal, and 05-02 has nothing new', () => {
    const [, v2, d2] = postingLines(written);
    expect(new Set(v2.map((l) => l.role))).toEqual(new Set(['wallet', 'reversal']));
    expect(d2).toEqual([]);
    expect(written[2].manifest.headline).toContain('journal: nothing new to post');
    // journal.csv still shows 05-02's whole day, naming where its entry was posted.
    const day2 = readJournalCsv(path.join(written[2].directory, 'journal.csv'));
    expect(day2.filter((l) => l.role === 'reversal').map((l) => l.posted_in)).toEqual(['2024-05-01/v2']);
  });

  it('the trial balance as of the last posting: wallet 0 (a movement of nothing), reversal 980, suspense 0', async () => {
    const last = (await listPostings(t.db.knex)).at(-1)!;
    expect(last).toMatchObject({ seq: 3, date: '2024-05-02', version: 1 });
    const tb = await trialBalance(t.db.knex, last.seq);
    const bal = Object.fromEntries(tb.map((r) => [r.role, new Decimal(r.balance).toFixed(2)]));
    expect(bal).toMatchObject({ wallet: '0.00', reversal: '980.00', payments_clearing: '-1000.00', fees: '20.00' });
    expect(bal.suspense ?? '0.00').toBe('0.00');
  });
});

describe.skipIf(requiresServer(NEEDS))('a fee correction seen on D+1, D rewritten on D+2, D+2 forced again', () => {
  let t: TestDatabase;
  let reportDir: string;
  const written: WriteReportsResult[] = [];
  const report = async (date: string, now: string, force = false) => {
    // An IDR organisation: the Xero and QuickBooks files in IDR, exact.
    const journal = { accounts: {}, base: 'IDR', baseRates: new Map(), usdtAtPar: false, xeroTaxRate: 'Tax Exempt' };
    const opts: WriteReportsOptions = { date, timezone: 'UTC', reportDir, now: new Date(now), currencies: ['IDR'], force, journal };
    const r = await writeReports(t.db, opts);
    written.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await createTestDatabase('h37_posting_fee', { engine: 'postgres' });
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-posting-'));
    // D = 05-01: a payout of 100,000 with a fee of 1,000, final and matched.
    await t.db.knex.raw(`
      INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '2024-05-01T10:00:00Z', 'completed'),
        (2, 'reconcile', '2024-05-02T11:00:00Z', 'completed');
      INSERT INTO payout_orders (id, merchant_ref, transaction_ref, currency, method, amount, fee, provider_fee, status, status_category,
        created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
        (1, 'Q-FEE', 'T-1', 'IDR', 'BANK', 100000, 1000, 1000, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 100000, '2024-05-01T09:00:00Z');
      INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
        (1, 'payout', 1, 'Q-FEE', 'T-1', 'IDR', 'BANK', '2024-05-01T10:00:00Z', 'Success', 'success', 100000, NULL, 1000,
         'Success', 'success', 100000, NULL, 1000, 'matched', '{}', '');
      INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
        ('IDR', 500000, 0, 0, 0, '2024-05-01T00:00:00Z'), ('IDR', 399000, 0, 0, 0, '2024-05-01T23:00:00Z');`);
    await report('2024-05-01', '2024-05-02T01:00:00Z');
    // D+1: the provider raises the fee to 2,500 (the balance falls 1,500); a check sees it at 11:00.
    await t.db.knex.raw(`
      UPDATE payout_orders SET provider_fee = 2500 WHERE id = 1;
      INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
        (2, 'payout', 1, 'Q-FEE', 'T-1', 'IDR', 'BANK', '2024-05-02T11:00:00Z', 'Success', 'success', 100000, NULL, 1000,
         'Success', 'success', 100000, NULL, 2500, 'mismatch', '{FEE}', 'fee recorded 1000.00, provider 2500.00');
      INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES ('IDR', 397500, 0, 0, 0, '2024-05-02T12:00:00Z');`);
    await report('2024-05-02', '2024-05-03T01:00:00Z');
    // D+2: nothing moves. D is rewritten (v2, forced), then D+2 written and forced again.
    await t.db.knex.raw(
      `INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES ('IDR', 397500, 0, 0, 0, '2024-05-03T12:00:00Z');`,
    );
    await report('2024-05-01', '2024-05-03T13:00:00Z', true);
    await report('2024-05-03', '2024-05-04T01:00:00Z');
    await report('2024-05-03', '2024-05-04T02:00:00Z', true);
  }, 120_000);
  afterAll(async () => {
    await t?.drop();
  });

  it('five versions written (D v1, D+1 v1, D v2, D+2 v1 and v2)', () => {
    expect(written.map((r) => [r.manifest.business_date, r.version, r.unchanged])).toEqual([
      ['2024-05-01', 1, false],
      ['2024-05-02', 1, false],
      ['2024-05-01', 2, false],
      ['2024-05-03', 1, false],
      ['2024-05-03', 2, false],
    ]);
  });

  it('the fee correction is posted once, on D+1’s file', () => {
    const files = postingLines(written);
    expect(files.map((f) => f.filter((l) => l.role === 'fee_correction').length)).toEqual([0, 1, 0, 0, 0]);
    expect(total(files, 'fee_correction')).toBe('1500.00');
  });

  it('no invented drift on D: its rewrite posts nothing and its journal keeps the fee of the day', () => {
    const d2 = readJournalCsv(path.join(written[2].directory, 'journal.csv'));
    expect(d2.filter((l) => l.role === 'suspense')).toEqual([]);
    expect(d2.filter((l) => l.role === 'fees').map((l) => l.debit)).toEqual(['1000.00']);
    const files = postingLines(written);
    expect(files[2]).toEqual([]);
    expect(files.flat().filter((l) => l.role === 'suspense')).toEqual([]);
    // The forced re-report of D+2 posts nothing already posted.
    expect(files[4]).toEqual([]);
  });

  it('the posting files of all versions summed per account equal the truth', () => {
    const files = postingLines(written);
    expect({
      wallet: total(files, 'wallet'),
      payouts_clearing: total(files, 'payouts_clearing'),
      fees: total(files, 'fees'),
      fee_correction: total(files, 'fee_correction'),
      suspense: total(files, 'suspense'),
    }).toEqual({
      wallet: '-102500.00', // 397,500 − 500,000
      payouts_clearing: '100000.00',
      fees: '1000.00',
      fee_correction: '1500.00',
      suspense: '0.00',
    });
  });

  it('journal numbers are unique across every version and day, in the QuickBooks and Xero files alike', () => {
    const numbers = written.flatMap((r) => [
      ...new Set(readJournalCsv(path.join(r.directory, 'journal_quickbooks.csv')).map((l) => l['Journal No.'])),
    ]);
    expect(numbers.length).toBeGreaterThan(1);
    expect(new Set(numbers).size).toBe(numbers.length);
    const narrations = written.flatMap((r) => [
      ...new Set(readJournalCsv(path.join(r.directory, 'journal_xero.csv')).map((l) => l.Narration)),
    ]);
    expect(new Set(narrations).size).toBe(narrations.length);
  });
});

function byEntry(lines: readonly CsvLine[]): Map<string, CsvLine[]> {
  const out = new Map<string, CsvLine[]>();
  for (const l of lines) out.set(l.posting_id, [...(out.get(l.posting_id) ?? []), l]);
  return out;
}

describe.skipIf(requiresServer(NEEDS))(
  'JOURNAL_BASE_CURRENCY=USD: a missing rate holds the entries back until the rates file has it',
  () => {
    let t: TestDatabase;
    let reportDir: string;
    const written: WriteReportsResult[] = [];
    const report = async (now: string, baseRates: Map<string, { rate: string; source: string }>) => {
      const r = await writeReports(t.db, {
        date: '2024-05-01',
        timezone: 'UTC',
        reportDir,
        now: new Date(now),
        currencies: ['INR'],
        force: true,
        journal: { accounts: {}, base: 'USD', baseRates, usdtAtPar: false, xeroTaxRate: 'No VAT' },
      });
      written.push(r);
      return r;
    };

    beforeAll(async () => {
      t = await createTestDatabase('h37_posting_usd', { engine: 'postgres' });
      reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-posting-'));
      await t.db.knex.raw(`
      INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '2024-05-01T10:00:00Z', 'completed');
      INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, provider_paid_amount, provider_fee,
        status, status_category, created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
        (1, 'P-1', 'T-1', 'INR', 'NATIVE', 1000, 1000, 20, 1000, 20, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 1000, '2024-05-01T09:00:00Z');
      INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
        (1, 'payment', 1, 'P-1', 'T-1', 'INR', 'NATIVE', '2024-05-01T10:00:00Z', 'Success', 'success', 1000, 1000, 20,
         'Success', 'success', 1000, 1000, 20, 'matched', '{}', '');
      INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
        ('INR', 10000, 0, 0, 0, '2024-05-01T00:00:00Z'), ('INR', 10980, 0, 0, 0, '2024-05-01T23:00:00Z');
      INSERT INTO rate_snapshots (currency, deposit, withdraw, taken_at, flags) VALUES ('INR', 83, 84, '2024-05-01T12:00:00Z', '{}');`);
      await report('2024-05-02T01:00:00Z', new Map());
      await report('2024-05-02T02:00:00Z', new Map([['2024-05-01:INR', { rate: '0.012', source: 'JOURNAL_RATES_FILE row 2' }]]));
      await report('2024-05-02T03:00:00Z', new Map([['2024-05-01:INR', { rate: '0.012', source: 'JOURNAL_RATES_FILE row 2' }]]));
    }, 120_000);
    afterAll(async () => {
      await t?.drop();
    });

    it('no rate: nothing posted, the headline names the currency and day, the ledger is empty', async () => {
      expect(written[0].manifest.headline).toContain('journal: 1 entry held back, no rate to USD for INR 2024-05-01 (JOURNAL_RATES_FILE)');
      expect(readJournalCsv(path.join(written[0].directory, 'journal_posting.csv'))).toEqual([]);
      expect(readJournalCsv(path.join(written[0].directory, 'journal_xero.csv'))).toEqual([]);
      expect((await listPostings(t.db.knex)).map((p) => p.lines)).toEqual([0, 3, 0]);
    });

    it('the rate added: the day posted whole on the next version (dated the day), in USD at that rate, once', () => {
      const posting = readJournalCsv(path.join(written[1].directory, 'journal_posting.csv'));
      expect(posting.map((l) => [l.date, l.role, l.adjusts_date])).toEqual([
        ['2024-05-01', 'wallet', ''],
        ['2024-05-01', 'fees', ''],
        ['2024-05-01', 'payments_clearing', ''],
      ]);
      const xero = readJournalCsv(path.join(written[1].directory, 'journal_xero.csv'));
      expect(xero.map((l) => [l.AccountCode, l.TaxRate, l.Amount])).toEqual([
        ['1211', 'No VAT', '11.76'], // 980 × 0.012
        ['6110', 'No VAT', '0.24'],
        ['2220', 'No VAT', '-12.00'],
      ]);
      expect(xero[0].Description).toContain('at 0.012 USD/INR: JOURNAL_RATES_FILE row 2');
      const qb = readJournalCsv(path.join(written[1].directory, 'journal_quickbooks.csv'));
      expect(qb.map((l) => l['Account Name'])).toEqual(['Provider wallet INR', 'Provider fees', 'Payments clearing']);
      expect(readJournalCsv(path.join(written[2].directory, 'journal_posting.csv'))).toEqual([]);
    });
  },
);
