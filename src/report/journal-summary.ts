import { Decimal, normalizeDecimal } from '../money/decimal.ts';
import { roleTotal, type JournalDay } from '../recon/journal.ts';
import { JOURNAL_USDT_DECIMALS } from '../recon/journal-usdt.ts';
import { COLUMN } from './columns.ts';
import type { Table, TableRow, TableSpec } from '../tabular/table.ts';

const USDT = { kind: 'decimal', decimals: JOURNAL_USDT_DECIMALS } as const;

/** summary_journal.csv: the day's journal per currency, as the e-mail, report.html and the Summary sheet show it. */
export const JOURNAL_SUMMARY: TableSpec = {
  name: 'summary_journal',
  title: 'Journal per currency',
  columns: [
    COLUMN.currency,
    { name: 'entries', kind: 'count' },
    { name: 'debits', kind: 'amount' },
    { name: 'credits', kind: 'amount' },
    { name: 'wallet_movement', kind: 'amount', label: 'wallet movement' },
    { name: 'suspense', kind: 'amount' },
    { name: 'fee_difference', kind: 'amount', label: 'fees above contract' },
    { name: 'usdt_debits', ...USDT, label: 'USDT debits' },
    { name: 'usdt_credits', ...USDT, label: 'USDT credits' },
    { name: 'note', kind: 'text', width: 40 },
  ],
  notes: [
    'Debits equal credits in every currency. Wallet movement = the roll-forward’s closing − opening; suspense = the drift less what known late changes explain (docs/guides/for-accounting.md).',
    'Suspense and fees above contract are debits (positive) or credits (negative). The lines are in journal.csv; journal_xero.csv and journal_quickbooks.csv are for import.',
  ],
};

/** One row per reconciled currency: totals of its entries' lines. */
export function journalSummaryTable(days: readonly JournalDay[]): Table {
  const rows: TableRow[] = days.map((d) => {
    let debits = new Decimal(0);
    let credits = new Decimal(0);
    let usdtDebits = new Decimal(0);
    let usdtCredits = new Decimal(0);
    let usdt = false;
    for (const e of d.entries)
      for (const l of e.lines) {
        const a = new Decimal(l.amount);
        if (a.isPositive()) debits = debits.plus(a);
        else credits = credits.minus(a);
        if (l.usdt !== null) {
          usdt = true;
          const u = new Decimal(l.usdt);
          if (u.isPositive()) usdtDebits = usdtDebits.plus(u);
          else usdtCredits = usdtCredits.minus(u);
        }
      }
    const checked = d.note === null;
    const u = (v: Decimal) => (usdt ? v.toFixed(JOURNAL_USDT_DECIMALS) : null);
    return [
      d.currency,
      d.entries.length,
      checked ? normalizeDecimal(debits) : null,
      checked ? normalizeDecimal(credits) : null,
      checked ? roleTotal(d.entries, 'wallet') : null,
      checked ? roleTotal(d.entries, 'suspense') : null,
      checked ? roleTotal(d.entries, 'fee_difference') : null,
      checked ? u(usdtDebits) : null,
      checked ? u(usdtCredits) : null,
      d.note ?? (usdt ? '' : 'no rate snapshot: no USDT figures'),
    ];
  });
  return { ...JOURNAL_SUMMARY, rows };
}
