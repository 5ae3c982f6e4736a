import type { JournalEntry } from '../recon/journal-types.ts';
import type { CsvFileResult } from './csv-file.ts';
import { journalTable, quickbooksTable, xeroTables, type JournalRenderOptions } from './journal-tables.ts';
import type { CsvFiles } from './manifest.ts';
import type { Table } from './table.ts';

export type JournalSettings = Omit<JournalRenderOptions, 'rates'>;

/** The chart of accounts and currencies when none are configured (the defaults of JOURNAL_*). */
export const DEFAULT_JOURNAL_SETTINGS: JournalSettings = { accounts: {}, base: 'USDT', xeroTaxRate: 'Tax Exempt' };

/**
 * journal.csv, journal_xero.csv (+ _2, _3 … past 300 lines) and journal_quickbooks.csv of a version,
 * each through its table definition; returns the files and the Journal sheet's table. Entries Xero
 * cannot take (no rate to reach the base currency) are named in journal_xero.csv's notes and the log.
 */
export async function writeJournalFiles(
  entries: readonly JournalEntry[],
  opts: JournalRenderOptions,
  writeTable: (t: Table) => Promise<CsvFileResult>,
): Promise<{ files: Partial<CsvFiles>; table: Table; skipped: string[] }> {
  const table = journalTable(entries, opts);
  const files: Record<string, CsvFileResult> = { 'journal.csv': await writeTable(table) };
  const xero = xeroTables(entries, opts);
  for (const t of xero.tables) files[`${t.name}.csv`] = await writeTable(t);
  files['journal_quickbooks.csv'] = await writeTable(quickbooksTable(entries, opts));
  return { files: files as Partial<CsvFiles>, table, skipped: xero.skipped };
}
