import { Decimal, normalizeDecimal } from '../money/decimal.ts';
import type { JournalEntry } from '../recon/journal-types.ts';
import type { PostingEntry } from '../recon/posting.ts';
import type { DayRate } from '../recon/journal-usdt.ts';
import { JOURNAL_USDT_DECIMALS } from '../recon/journal-usdt.ts';
import { accountFor, type Account } from './journal-accounts.ts';
import type { Table, TableColumn, TableRow } from './table.ts';

export interface JournalRenderOptions {
  accounts: Readonly<Record<string, Account>>;
  /** JOURNAL_BASE_CURRENCY: what journal_xero.csv posts in, QuickBooks' home currency. */
  base: string;
  /** The day's closing rate per currency (units per 1 USDT); the base's own when base is local. */
  rates: ReadonlyMap<string, DayRate>;
  xeroTaxRate: string;
}

export const XERO_MAX_LINES = 300;

const USDT_COL = { kind: 'decimal', decimals: JOURNAL_USDT_DECIMALS } as const;

export const JOURNAL_COLUMNS: readonly TableColumn[] = [
  { name: 'entry_id', kind: 'text', width: 34 },
  { name: 'date', kind: 'text', width: 11 },
  { name: 'currency', kind: 'text' },
  { name: 'role', kind: 'text', width: 18 },
  { name: 'account_code', kind: 'text' },
  { name: 'account_name', kind: 'text', width: 28 },
  { name: 'debit', kind: 'amount' },
  { name: 'credit', kind: 'amount' },
  { name: 'usdt_rate', kind: 'decimal', label: 'USDT rate' },
  { name: 'usdt_debit', ...USDT_COL, label: 'USDT debit' },
  { name: 'usdt_credit', ...USDT_COL, label: 'USDT credit' },
  { name: 'description', kind: 'text', width: 50 },
  { name: 'source_ref', kind: 'text', width: 24 },
];

/** journal.csv's last column: the posting files that carried the line's entry ("2026-01-02/v1"), or why none has. */
const POSTED_IN: TableColumn = { name: 'posted_in', kind: 'text', width: 24, label: 'posted in' };

/** journal_posting.csv: journal.csv's columns, then what the line's entry is posted as. */
export const POSTING_COLUMNS: readonly TableColumn[] = [
  ...JOURNAL_COLUMNS,
  { name: 'posting_id', kind: 'text', width: 16, label: 'journal no.' },
  { name: 'adjusts_date', kind: 'text', width: 11, label: 'adjusts day' },
  { name: 'adjusts_version', kind: 'text', label: 'adjusts version' },
];

const side = (v: string | null): [string | null, string | null] => {
  if (v === null) return [null, null];
  const d = new Decimal(v);
  if (d.isZero()) return [null, null];
  return d.isNegative() ? [null, normalizeDecimal(d.negated())] : [normalizeDecimal(d), null];
};

function journalRows(e: JournalEntry, accounts: Readonly<Record<string, Account>>, id: string): TableRow[] {
  return e.lines.map((l) => {
    const a = accountFor(accounts, l.role, e.currency);
    const [debit, credit] = side(l.amount);
    const [ud, uc] = side(l.usdt);
    return [
      id,
      e.date,
      e.currency,
      l.role,
      a.code,
      a.name,
      debit,
      credit,
      l.usdtRate,
      ud,
      uc,
      `${e.description}: ${l.description}`,
      l.sourceRef,
    ];
  });
}

/** journal.csv and the workbook's Journal sheet: the whole day as it now stands, every line in its currency and in USDT, with where it was posted. */
export function journalTable(
  entries: readonly JournalEntry[],
  opts: Pick<JournalRenderOptions, 'accounts'>,
  postedIn: ReadonlyMap<string, readonly string[]> = new Map(),
  notPosted = 'not posted',
): Table {
  const rows: TableRow[] = entries.flatMap((e) => {
    const where = postedIn.get(e.key)?.join(' + ') || notPosted;
    return journalRows(e, opts.accounts, e.id).map((r) => [...r, where]);
  });
  return {
    name: 'journal',
    title: 'Journal',
    columns: [...JOURNAL_COLUMNS, POSTED_IN],
    rows,
    notes: [
      'The day as it now stands, for reading: post journal_posting.csv (or its Xero / QuickBooks files), never this. "posted in" names the posting files that carried each entry.',
      'One entry per currency and kind; each balances in its currency and in USDT. Debit and credit in the entry’s currency.',
      'USDT at the day’s closing rate snapshot (deposit side for entries bringing money in, withdraw side for money out), 6 decimals; a rounding line takes what rounding leaves.',
    ],
  };
}

/** journal_posting.csv: only what this version posts, each entry under its journal number. */
export function postingTable(
  entries: readonly PostingEntry[],
  opts: Pick<JournalRenderOptions, 'accounts'>,
  nothing: string | null,
): Table {
  const rows: TableRow[] = entries.flatMap((e) =>
    journalRows(e, opts.accounts, e.id).map((r) => [
      ...r,
      e.journalNo,
      e.adjusts?.date ?? null,
      e.adjusts ? String(e.adjusts.version) : null,
    ]),
  );
  return {
    name: 'journal_posting',
    title: 'Journal to post',
    columns: POSTING_COLUMNS,
    rows,
    notes: [
      nothing ?? 'Post every posting file once, in the order written (trial_balance.csv shows the accounts once this one is posted).',
      'An entry with an adjusts day is an adjusting entry: the difference between what that version posted and what is true now, dated the day it was written.',
    ],
  };
}

interface BaseLine {
  account: Account;
  role: string;
  /** Signed, in the base currency, rounded to 2 decimals. */
  amount: Decimal;
  description: string;
}

/**
 * An entry's lines in the base currency: exact when the base is the entry's currency, else each
 * local amount ÷ its rate × the base's rate (1 for USDT), rounded half-up to 2 decimals, with the
 * residual on a rounding line so the journal still sums to zero. Null without the rates.
 */
function inBase(e: JournalEntry, opts: JournalRenderOptions): BaseLine[] | null {
  const lines = e.lines.filter((l) => l.role !== 'rounding');
  const acc = (role: (typeof lines)[number]['role']) => accountFor(opts.accounts, role, e.currency);
  if (opts.base === e.currency)
    return lines.map((l) => ({ account: acc(l.role), role: l.role, amount: new Decimal(l.amount), description: l.description }));
  const rate = lines[0]?.usdtRate;
  const baseRate = opts.base === 'USDT' ? '1' : opts.rates.get(opts.base)?.deposit;
  if (!rate || !baseRate) return null;
  const out = lines.map((l) => {
    const amount = new Decimal(l.amount).dividedBy(rate).times(baseRate).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    return {
      account: acc(l.role),
      role: l.role,
      amount,
      description: `${l.description} (${e.currency} ${new Decimal(l.amount).abs().toFixed(2)} at ${rate} ${e.currency}/USDT${opts.base === 'USDT' ? '' : `, ${baseRate} ${opts.base}/USDT`})`,
    };
  });
  const residual = out.reduce((a, l) => a.plus(l.amount), new Decimal(0));
  if (!residual.isZero()) {
    out.push({
      account: acc('rounding'),
      role: 'rounding',
      amount: residual.negated(),
      description: `rounding after conversion to ${opts.base}`,
    });
  }
  return out;
}

const XERO_COLUMNS: readonly TableColumn[] = ['Narration', 'Date', 'Description', 'AccountCode', 'TaxRate', 'Amount'].map((name) => ({
  name,
  kind: name === 'Amount' ? 'decimal' : 'text',
  decimals: name === 'Amount' ? 2 : undefined,
}));

const ddmmyyyy = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`;
const mmddyyyy = (date: string) => `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)}`;

/**
 * journal_xero.csv (then journal_xero_2.csv, …): Xero's manual journal import, in the base currency,
 * debit positive, credit negative; one journal per entry (its Narration), split between files only
 * at journal boundaries so no file passes 300 lines. Entries without the rates to convert are left
 * out and named in `skipped`.
 */
export function xeroTables(entries: readonly PostingEntry[], opts: JournalRenderOptions): { tables: Table[]; skipped: string[] } {
  const files: TableRow[][] = [[]];
  const skipped: string[] = [];
  for (const e of entries) {
    const lines = inBase(e, opts);
    if (lines === null) {
      skipped.push(e.id);
      continue;
    }
    const rows: TableRow[] = lines
      .filter((l) => !l.amount.isZero())
      .map((l) => [
        `${e.journalNo} ${e.description}`,
        ddmmyyyy(e.date),
        l.description,
        l.account.code,
        opts.xeroTaxRate,
        l.amount.toFixed(2),
      ]);
    if (files.at(-1)!.length + rows.length > XERO_MAX_LINES) files.push([]);
    files.at(-1)!.push(...rows);
  }
  const tables = files.map((rows, i) => ({
    name: i === 0 ? 'journal_xero' : `journal_xero_${i + 1}`,
    title: `Journal for Xero${i === 0 ? '' : ` (part ${i + 1})`}`,
    columns: XERO_COLUMNS,
    rows,
    notes: [`Amounts in ${opts.base}; positive = debit, negative = credit.`],
  }));
  return { tables, skipped };
}

const QB_COLUMNS: readonly TableColumn[] = [
  { name: 'Journal No.', kind: 'text' },
  { name: 'Journal Date', kind: 'text' },
  { name: 'Account Name', kind: 'text' },
  { name: 'Debits', kind: 'decimal', decimals: 2 },
  { name: 'Credits', kind: 'decimal', decimals: 2 },
  { name: 'Description', kind: 'text' },
  { name: 'Name', kind: 'text' },
  { name: 'Currency', kind: 'text' },
  { name: 'Exchange Rate', kind: 'decimal' },
];

/**
 * journal_quickbooks.csv: QuickBooks Online's journal import for a multi-currency company. Amounts
 * in the entry's own currency (exact), with its Currency and the Exchange Rate to the home currency
 * (JOURNAL_BASE_CURRENCY per 1 unit, 12 decimals); dates MM/DD/YYYY. Journal No. is the posting's
 * (the version's date and number and the entry's sequence: unique across versions and days, 21 characters at most).
 */
export function quickbooksTable(entries: readonly PostingEntry[], opts: JournalRenderOptions): Table {
  const rows: TableRow[] = [];
  for (const e of entries) {
    const rate = e.lines[0]?.usdtRate ?? null;
    const baseRate = opts.base === 'USDT' ? '1' : (opts.rates.get(opts.base)?.deposit ?? null);
    const exchange =
      opts.base === e.currency ? '1' : rate && baseRate ? new Decimal(baseRate).dividedBy(rate).toDecimalPlaces(12).toFixed() : null;
    for (const l of e.lines) {
      if (l.role === 'rounding') continue; // USDT-only; QuickBooks converts the local amounts itself
      const [debit, credit] = side(l.amount);
      if (debit === null && credit === null) continue;
      const a = accountFor(opts.accounts, l.role, e.currency);
      rows.push([e.journalNo, mmddyyyy(e.date), a.name, debit, credit, `${e.id}: ${l.description}`, null, e.currency, exchange]);
    }
  }
  return {
    name: 'journal_quickbooks',
    title: 'Journal for QuickBooks Online',
    columns: QB_COLUMNS,
    rows,
    notes: [`Amounts in each entry’s currency; Exchange Rate = ${opts.base} per 1 unit of it.`],
  };
}
