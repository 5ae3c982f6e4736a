import type { TrialBalanceRow } from '../db/journal-postings.ts';
import type { CsvFileResult } from './csv-file.ts';
import { accountFor } from './journal-accounts.ts';
import type { VersionPosting } from './journal-ledger.ts';
import {
  JOURNAL_PRINT_SCALE,
  journalTable,
  postingTable,
  quickbooksTable,
  xeroTables,
  type JournalRenderOptions,
} from './journal-tables.ts';
import type { CsvFiles } from './manifest.ts';
import type { Table } from '../tabular/table.ts';

export type JournalSettings = Omit<JournalRenderOptions, 'rates'> & {
  /** JOURNAL_FX_REVALUATION: the month-end revaluation entries. */
  fxRevaluation?: boolean;
};

/** The chart of accounts and currencies when none are configured (the defaults of JOURNAL_*). */
export const DEFAULT_JOURNAL_SETTINGS: JournalSettings = {
  accounts: {},
  base: '',
  baseRates: new Map(),
  usdtAtPar: false,
  xeroTaxRate: 'Tax Exempt',
};

/** trial_balance.csv and its sheet: each account's running balance per currency once this posting file is posted. */
export function trialBalanceTable(
  rows: readonly TrialBalanceRow[],
  opts: Pick<JournalRenderOptions, 'accounts'>,
  postingFile: string,
): Table {
  return {
    name: 'trial_balance',
    title: 'Trial balance',
    printScale: JOURNAL_PRINT_SCALE,
    columns: [
      { name: 'currency', kind: 'text' },
      { name: 'account_code', kind: 'text' },
      { name: 'account_name', kind: 'text', width: 28 },
      { name: 'role', kind: 'text', width: 18 },
      { name: 'debits', kind: 'amount' },
      { name: 'credits', kind: 'amount' },
      { name: 'balance', kind: 'amount' },
    ],
    rows: rows
      .map((r) => {
        const a = accountFor(opts.accounts, r.role, r.currency);
        return [r.currency, a.code, a.name, r.role, r.debits, r.credits, r.balance];
      })
      // By currency, then account code: as a trial balance reads.
      .sort((a, b) => (a[0] === b[0] ? String(a[1]).localeCompare(String(b[1])) : String(a[0]).localeCompare(String(b[0])))),
    notes: [
      `Every posting file up to and including ${postingFile} posted once, in order. Balance = debits − credits; each currency sums to zero, and the wallet's is the provider balance at the last checked close.`,
    ],
  };
}

/**
 * journal.csv (the day as it stands), journal_posting.csv and its Xero (+ _2, _3 … past 300 lines)
 * and QuickBooks files (only what this version posts), trial_balance.csv; returns the files and the
 * Journal and Trial balance sheets' tables. Entries Xero cannot take (no rate to reach the base
 * currency) are named in `skipped` and the log.
 */
export async function writeJournalFiles(
  posting: VersionPosting,
  opts: JournalRenderOptions & { postingFile: string },
  writeTable: (t: Table) => Promise<CsvFileResult>,
): Promise<{ files: Partial<CsvFiles>; table: Table; trialBalance: Table; skipped: string[] }> {
  const table = journalTable(posting.day, opts, posting.postedIn);
  const files: Record<string, CsvFileResult> = { 'journal.csv': await writeTable(table) };
  const xero = xeroTables(posting.entries, opts);
  for (const t of xero.tables) files[`${t.name}.csv`] = await writeTable(t);
  files['journal_quickbooks.csv'] = await writeTable(quickbooksTable(posting.entries, opts));
  files['journal_posting.csv'] = await writeTable(postingTable(posting.entries, opts, posting.nothing));
  const trialBalance = trialBalanceTable(posting.trialBalance, opts, opts.postingFile);
  files['trial_balance.csv'] = await writeTable(trialBalance);
  return { files: files as Partial<CsvFiles>, table, trialBalance, skipped: xero.skipped };
}
