import { Decimal, normalizeDecimal } from '../money/decimal.ts';
import type { JournalEntry } from '../recon/journal-types.ts';
import type { PostingEntry } from '../recon/posting.ts';
import type { DayRate } from '../recon/journal-usdt.ts';
import { JOURNAL_USDT_DECIMALS } from '../recon/journal-usdt.ts';
import { accountFor, type Account } from './journal-accounts.ts';
import type { BaseRate } from '../config/journal-settings.ts';
import type { Table, TableColumn, TableRow } from '../tabular/table.ts';

export interface JournalRenderOptions {
  accounts: Readonly<Record<string, Account>>;
  /** JOURNAL_BASE_CURRENCY: what journal_xero.csv posts in, QuickBooks' home currency; '' when not set. */
  base: string;
  /** JOURNAL_RATES_FILE: "date:currency" → base per 1 unit. */
  baseRates: ReadonlyMap<string, BaseRate>;
  /** JOURNAL_USDT_AT_PAR. */
  usdtAtPar: boolean;
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

/** The Journal sheet's print scale: at least 8 pt from the workbook's 11 pt. */
export const JOURNAL_PRINT_SCALE = 75;

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
    // 11 pt at 75 % prints at 8.25 pt: readable, the columns running on to a second page across.
    printScale: JOURNAL_PRINT_SCALE,
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
 * The rate from an entry's currency to the base, and where it comes from: 1 for the base itself;
 * the JOURNAL_RATES_FILE row of the entry's date; with JOURNAL_USDT_AT_PAR and a USD base, the
 * provider's USDT rate of the entry taken at par. Null when none: the entry is held back.
 */
export function baseRateOf(e: JournalEntry, opts: Pick<JournalRenderOptions, 'base' | 'baseRates' | 'usdtAtPar'>): BaseRate | null {
  if (!opts.base) return null;
  if (opts.base === e.currency) return { rate: '1', source: 'the base currency' };
  const row = opts.baseRates.get(`${e.date}:${e.currency}`);
  if (row) return row;
  const usdt = e.lines.find((l) => l.usdtRate !== null)?.usdtRate ?? null;
  if (opts.usdtAtPar && opts.base === 'USD' && usdt !== null)
    return {
      rate: normalizeDecimal(new Decimal(1).dividedBy(usdt)),
      source: `the provider’s ${usdt} ${e.currency}/USDT, USDT at par with USD`,
    };
  return null;
}

/**
 * An entry's lines in the base currency: exact when the base is the entry's currency, else each
 * local amount × its rate (baseRateOf), rounded half-up to 2 decimals, with the residual on a
 * rounding line so the journal still sums to zero. Null without a rate.
 */
function inBase(e: JournalEntry, opts: JournalRenderOptions): BaseLine[] | null {
  const lines = e.lines.filter((l) => l.role !== 'rounding');
  const acc = (role: (typeof lines)[number]['role']) => accountFor(opts.accounts, role, e.currency);
  if (opts.base === e.currency)
    return lines.map((l) => ({ account: acc(l.role), role: l.role, amount: new Decimal(l.amount), description: l.description }));
  const r = baseRateOf(e, opts);
  if (r === null) return null;
  if (e.kind === 'fx_revaluation')
    // USDT only (amount 0): it reaches the base only where USDT is valued at par with USD.
    return opts.usdtAtPar && opts.base === 'USD'
      ? lines.map((l) => ({
          account: acc(l.role),
          role: l.role,
          amount: new Decimal(l.usdt ?? '0').toDecimalPlaces(2, Decimal.ROUND_HALF_UP),
          description: `${l.description} (USDT at par with USD)`,
        }))
      : [];
  const out = lines.map((l) => {
    const amount = new Decimal(l.amount).times(r.rate).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    return {
      account: acc(l.role),
      role: l.role,
      amount,
      description: `${l.description} (${e.currency} ${new Decimal(l.amount).abs().toFixed(2)} at ${new Decimal(r.rate).toDecimalPlaces(10).toFixed()} ${opts.base}/${e.currency}: ${r.source})`,
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
    notes: [
      opts.base
        ? `Amounts in ${opts.base}; positive = debit, negative = credit. Imported as drafts: post them from Manual Journals.`
        : 'JOURNAL_BASE_CURRENCY is not set: no lines (set it to your organisation’s base currency).',
    ],
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
];

/**
 * journal_quickbooks.csv: QuickBooks Online's journal import, only the columns Intuit documents,
 * in the home currency (JOURNAL_BASE_CURRENCY): each line converted as for Xero, its rate and source
 * in the Description; dates MM/DD/YYYY. Journal No. is the posting's (the version's date and number
 * and the entry's sequence: unique across versions and days, 21 characters at most). The wallet is
 * an account per currency ("Provider wallet INR"): a foreign-currency wallet account in a
 * multi-currency company takes its entries in its own currency on the Journal entry screen instead
 * (docs/guides/for-accounting.md).
 */
export function quickbooksTable(entries: readonly PostingEntry[], opts: JournalRenderOptions): Table {
  const rows: TableRow[] = [];
  for (const e of entries) {
    for (const l of inBase(e, opts) ?? []) {
      const [debit, credit] = side(l.amount.toFixed());
      if (debit === null && credit === null) continue;
      rows.push([e.journalNo, mmddyyyy(e.date), l.account.name, debit, credit, `${e.id}: ${l.description}`, null]);
    }
  }
  return {
    name: 'journal_quickbooks',
    title: 'Journal for QuickBooks Online',
    columns: QB_COLUMNS,
    rows,
    notes: [
      opts.base
        ? `Amounts in ${opts.base} (the home currency); each foreign-currency line gives its rate and where it came from.`
        : 'JOURNAL_BASE_CURRENCY is not set: no lines (set it to your company’s home currency).',
    ],
  };
}
