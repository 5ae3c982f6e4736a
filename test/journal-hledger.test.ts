// Issue 37: a three-day run's posting files posted into a real double-entry ledger, hledger (Debian's
// package; the test skips with the reason where it is not installed): hledger accepts every
// transaction (each balances), and its trial balance holds the wallet at the provider's last close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { writeReports, type WriteReportsResult } from '../src/report/write-reports.ts';
import { hasHledger, hledgerJournal, hledgerTrialBalance } from '../scripts/hledger-journal.ts';

const HLEDGER = hasHledger();
if (!HLEDGER) console.warn('skipped: hledger is not installed (Debian: apt-get install hledger); the hledger posting test needs it');

const ITEM_COLUMNS = `run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
  local_status, local_category, local_amount, local_paid_amount, local_fee, provider_status, provider_category, provider_amount,
  provider_paid_amount, provider_fee, verdict, codes, reason`;

describe.skipIf(!HLEDGER || requiresServer('the report takes the date lock on a connection of its own'))(
  'three days of posting files posted into hledger',
  () => {
    let t: TestDatabase;
    let dir: string;
    const written: WriteReportsResult[] = [];
    let balances: Map<string, string>;
    let journalText: string;

    beforeAll(async () => {
      t = await createTestDatabase('h37_hledger', { engine: 'postgres' });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-hledger-'));
      const report = async (date: string, now: string, force = false) =>
        written.push(
          await writeReports(t.db, { date, timezone: 'UTC', reportDir: dir, now: new Date(now), currencies: ['IDR', 'INR'], force }),
        );
      // Day 1: an IDR payout (fee 1,000) and an INR payment (1,000 less 20), both final and matched.
      await t.db.knex.raw(`
        INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '2024-05-01T10:00:00Z', 'completed'),
          (2, 'reconcile', '2024-05-02T11:00:00Z', 'completed');
        INSERT INTO payout_orders (id, merchant_ref, transaction_ref, currency, method, amount, fee, provider_fee, status, status_category,
          created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
          (1, 'Q-FEE', 'T-Q', 'IDR', 'BANK', 100000, 1000, 1000, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 100000, '2024-05-01T09:00:00Z');
        INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, provider_paid_amount, provider_fee,
          status, status_category, created_at, finalized_at, provider_category, provider_amount, provider_success_at) VALUES
          (1, 'P-REV', 'T-P', 'INR', 'NATIVE', 1000, 1000, 20, 1000, 20, 'Success', 'success', '2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z', 'success', 1000, '2024-05-01T09:00:00Z');
        INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
          (1, 'payout', 1, 'Q-FEE', 'T-Q', 'IDR', 'BANK', '2024-05-01T10:00:00Z', 'Success', 'success', 100000, NULL, 1000,
           'Success', 'success', 100000, NULL, 1000, 'matched', '{}', ''),
          (1, 'payment', 1, 'P-REV', 'T-P', 'INR', 'NATIVE', '2024-05-01T10:00:00Z', 'Success', 'success', 1000, 1000, 20,
           'Success', 'success', 1000, 1000, 20, 'matched', '{}', '');
        INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
          ('IDR', 500000, 0, 0, 0, '2024-05-01T00:00:00Z'), ('IDR', 399000, 0, 0, 0, '2024-05-01T23:00:00Z'),
          ('INR', 10000, 0, 0, 0, '2024-05-01T00:00:00Z'), ('INR', 10980, 0, 0, 0, '2024-05-01T23:00:00Z');`);
      await report('2024-05-01', '2024-05-02T01:00:00Z');
      // Day 2: the payout's fee raised to 2,500 and the payment reversed; a rerun of day 1 sees both at 11:00.
      await t.db.knex.raw(`
        UPDATE payout_orders SET provider_fee = 2500 WHERE id = 1;
        UPDATE payment_orders SET provider_category = 'failed' WHERE id = 1;
        INSERT INTO recon_items (${ITEM_COLUMNS}) VALUES
          (2, 'payout', 1, 'Q-FEE', 'T-Q', 'IDR', 'BANK', '2024-05-02T11:00:00Z', 'Success', 'success', 100000, NULL, 1000,
           'Success', 'success', 100000, NULL, 2500, 'mismatch', '{FEE}', 'fee recorded 1000.00, provider 2500.00'),
          (2, 'payment', 1, 'P-REV', 'T-P', 'INR', 'NATIVE', '2024-05-02T11:00:00Z', 'Success', 'success', 1000, 1000, 20,
           'Reversed', 'failed', 1000, 1000, 20, 'mismatch', '{STATUS}', 'provider says Reversed');
        INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
          ('IDR', 397500, 0, 0, 0, '2024-05-02T12:00:00Z'), ('INR', 10000, 0, 0, 0, '2024-05-02T12:00:00Z');`);
      await report('2024-05-01', '2024-05-02T13:00:00Z'); // the rerun's report of day 1
      await report('2024-05-02', '2024-05-03T01:00:00Z');
      // Day 3: nothing moves; day 3 written, then forced again.
      await t.db.knex.raw(`INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at) VALUES
        ('IDR', 397500, 0, 0, 0, '2024-05-03T12:00:00Z'), ('INR', 10000, 0, 0, 0, '2024-05-03T12:00:00Z');`);
      await report('2024-05-03', '2024-05-04T01:00:00Z');
      await report('2024-05-03', '2024-05-04T02:00:00Z', true);
      const file = path.join(dir, 'ledger.journal');
      journalText = hledgerJournal(written.map((r) => path.join(r.directory, 'journal_posting.csv')));
      fs.writeFileSync(file, journalText);
      balances = hledgerTrialBalance(file);
    }, 120_000);
    afterAll(async () => {
      await t?.drop();
    });

    it('hledger accepts every posting file: each transaction balances, no journal number twice', () => {
      const numbers = journalText.split('\n').flatMap((l) => (/^\d{4}-\d{2}-\d{2} /.test(l) ? [l.split(' ')[1]] : []));
      expect(numbers.length).toBeGreaterThan(3);
      expect(new Set(numbers).size).toBe(numbers.length);
    });

    it("the trial balance: each wallet at the provider's last close less the first opening, suspense nil, each late change once", () => {
      expect(balances.get('1213 Provider wallet IDR')).toBe('-102500.00 IDR'); // 397,500 − 500,000
      expect(balances.get('1211 Provider wallet INR') ?? '0').toBe('0'); // 10,000 − 10,000
      expect(balances.get('6120 Provider fee corrections')).toBe('1500.00 IDR');
      expect(balances.get('1240 Provider reversals')).toBe('980.00 INR');
      expect(balances.has('9990 Provider suspense')).toBe(false);
      expect(balances.get('total')).toBe('0');
    });
  },
);
