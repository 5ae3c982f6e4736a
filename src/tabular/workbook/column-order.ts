import type { TableColumn } from '../table.ts';

/**
 * Columns a row is known by: they stay first, before the money. A journal line is known by its entry
 * and its account, as an accountant reads a journal: entry, date, account, then debit and credit.
 */
const KEYS = ['entry_id', 'business_date', 'date', 'currency', 'direction', 'role', 'account_code', 'account_name'];

/**
 * The workbook's column order: the keys, then the money (amounts, then other decimals such as
 * USDT), then the rest as the table lists them. The CSV files keep the table's order (scripts
 * read them by position); a person reads the money first without scrolling right.
 */
export function moneyFirstOrder(columns: readonly TableColumn[]): number[] {
  const idx = columns.map((_, i) => i);
  const keys = KEYS.flatMap((k) => idx.filter((i) => columns[i].name === k));
  const amounts = idx.filter((i) => !keys.includes(i) && columns[i].kind === 'amount');
  const decimals = idx.filter((i) => !keys.includes(i) && columns[i].kind === 'decimal');
  const picked = new Set([...keys, ...amounts, ...decimals]);
  return [...keys, ...amounts, ...decimals, ...idx.filter((i) => !picked.has(i))];
}
