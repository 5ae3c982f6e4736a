/**
 * The index of a version's tables: each one's CSV file (`<name>.csv`, in manifest order), what it
 * is for, and which other outputs carry it. The workbook takes its sheet names from here, report.html
 * its tables and its list of files; the e-mail's body and attachments are checked against it
 * (test/report-tables.test.ts). A new table is a line here.
 */
export interface ReportTableEntry {
  /** File stem: `<name>.csv` in every version, and the table's name. */
  readonly name: string;
  /** What it is for, as report.html's list of files says it. */
  readonly purpose: string;
  /** The workbook's tab that carries it, or null (the Xero and QuickBooks layouts are for import only). */
  readonly sheet: string | null;
  /** report.html: the whole table, its first rows (the rest are in the file and the workbook), or only the file listed. */
  readonly html: 'table' | 'first rows' | null;
  /** The e-mail: the table in the body (a summary table, shown when it has rows), the file attached, or neither. */
  readonly email: 'body' | 'attached' | null;
}

export const REPORT_TABLES: readonly ReportTableEntry[] = [
  {
    name: 'items',
    purpose: 'every order of the day with its latest check: both sides, verdict, codes, signed difference',
    sheet: 'Items',
    html: null,
    email: null,
  },
  {
    name: 'mismatches',
    purpose: 'the mismatched orders only, in the same columns as items.csv',
    sheet: 'Mismatches',
    html: 'first rows',
    email: 'attached',
  },
  {
    name: 'summary_orders',
    purpose:
      'per currency and direction: counts by verdict and by provider status (failed included), gross, paid, fees, net (payments paid − fees; payouts −(amount + fees), an outflow); a total row per currency',
    sheet: 'Summary',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_rollforward',
    purpose:
      'per currency: opening and closing balance snapshots with their times, movement by orders, timing items (count and movement), expected closing, drift, within tolerance',
    sheet: 'Roll-forward',
    html: 'table',
    email: 'body',
  },
  {
    name: 'timing_items',
    purpose:
      "the roll-forward's timing items: orders that may have become final on either side of a snapshot, and the side each was counted on",
    sheet: 'Timing items',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_journal',
    purpose:
      'per currency: the journal’s entries, debits and credits (equal), wallet movement (= closing − opening), suspense, fees above contract, USDT totals',
    sheet: 'Journal per currency',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_unknown_orders',
    purpose:
      'orders the provider confirmed that we have no record of (UNKNOWN_ORDER), counted per currency and direction, with the money they moved',
    sheet: 'Unknown orders',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_identity_mismatches',
    purpose:
      "orders whose provider record is another order, another method or in another currency (CURRENCY, METHOD, MERCHANT_REF), per provider currency, direction and order currency, with the provider's money: in no currency's totals of summary_orders.csv",
    sheet: 'Identity mismatches',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_open_items',
    purpose: 'open items of earlier days counted per currency and aging bucket',
    sheet: 'Open items by age',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_late_changes',
    purpose: 'late changes to earlier days counted per currency',
    sheet: 'Late changes by currency',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_cases',
    purpose: 'the cases of the day and the lookback days per currency and code: open, acknowledged, resolved, written off, oldest open age',
    sheet: 'Cases',
    html: 'table',
    email: 'body',
  },
  {
    name: 'summary_case_activity',
    purpose: 'per currency: cases opened and resolved (by reason) during the day, and every case still open by age',
    sheet: 'Case activity',
    html: 'table',
    email: 'body',
  },
  {
    name: 'open_items',
    purpose: 'orders of earlier days still pending, unchecked, in error or mismatched, with their age',
    sheet: 'Open items',
    html: null,
    email: null,
  },
  {
    name: 'late_changes',
    purpose: "orders of earlier days whose verdict or codes changed since their day's last report",
    sheet: 'Late changes',
    html: null,
    email: null,
  },
  {
    name: 'balances',
    purpose: 'the balance snapshots of the day (total_excluding_credit = available + pending + held; credit is not funds)',
    sheet: 'Balances',
    html: null,
    email: null,
  },
  {
    name: 'rates',
    purpose: 'the USDT rate snapshots of the day',
    sheet: 'Rates',
    html: null,
    email: null,
  },
  {
    name: 'journal',
    purpose:
      'the day’s double-entry journal: one balanced entry per currency and kind, a role and account per line, debit/credit in the currency and in USDT (docs/guides/for-accounting.md)',
    sheet: 'Journal',
    html: null,
    email: 'attached',
  },
  {
    name: 'journal_xero',
    purpose:
      'the journal in Xero’s manual journal import layout, in JOURNAL_BASE_CURRENCY; past 300 lines continued in journal_xero_2.csv, …',
    sheet: null,
    html: null,
    email: 'attached',
  },
  {
    name: 'journal_quickbooks',
    purpose: 'the journal in QuickBooks Online’s journal import layout, in each entry’s currency with its exchange rate',
    sheet: null,
    html: null,
    email: 'attached',
  },
  {
    name: 'journal_posting',
    purpose:
      'what this version posts: only the lines no earlier posting file carried (the day on its first version; adjusting entries on a rerun); journal_xero.csv and journal_quickbooks.csv hold the same entries',
    sheet: null,
    html: null,
    email: 'attached',
  },
  {
    name: 'trial_balance',
    purpose: 'each account’s running balance per currency once every posting file up to and including this one is posted, in order',
    sheet: 'Trial balance',
    html: null,
    email: null,
  },
];

/**
 * The workbook's tabs in reading order (they are written in another): the index's sheets, money and
 * what needs a person first (the journal, what accounting opens, right after the Summary). A sheet not listed follows, in the order written.
 */
export const WORKBOOK_TABS: readonly string[] = [
  'Summary',
  'Journal',
  'Trial balance',
  'Mismatches',
  'Open items',
  'Late changes',
  'Roll-forward',
  'Timing items',
  'Items',
  'Balances',
  'Rates',
  'Unknown orders',
  'Identity mismatches',
  'Open items by age',
  'Late changes by currency',
  'Cases',
  'Case activity',
];

const BY_NAME = new Map(REPORT_TABLES.map((t) => [t.name, t]));

/** The index entry of a table, by its name; undefined for a name not in the index (journal_xero_2, …). */
export function reportTable(name: string): ReportTableEntry | undefined {
  return BY_NAME.get(name);
}
