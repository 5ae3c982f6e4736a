import fs from 'node:fs';
import { Decimal } from '../../src/money/decimal.ts';

/** A row of a journal CSV file (journal.csv, journal_posting.csv, the Xero and QuickBooks files) by column name. */
export type CsvLine = Record<string, string>;

/** The file's rows; amounts are written plain (no separators), so only quoted descriptions hold commas. */
export function readJournalCsv(file: string): CsvLine[] {
  const text = fs
    .readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd();
  if (text === '') return [];
  const [head, ...rows] = text.split(/\r?\n/);
  const split = (l: string) =>
    l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replaceAll('""', '"'));
  const names = split(head);
  return rows.map((r) => Object.fromEntries(split(r).map((v, i) => [names[i], v])));
}

export const sumBy = (lines: readonly CsvLine[], f: (l: CsvLine) => string) => lines.reduce((a, l) => a.plus(f(l) || '0'), new Decimal(0));

/** A line's signed amount: debit positive, credit negative. */
export const signed = (l: CsvLine) => new Decimal(l.debit || '0').minus(l.credit || '0');
