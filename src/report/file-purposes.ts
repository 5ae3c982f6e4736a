/** What each file of a report version is for, as report.html and docs/reference/report-files.md say it. */
export const FILE_PURPOSES: Readonly<Record<string, string>> = {
  'reconciliation.xlsx': 'the workbook: every table below as typed sheets (numbers, dates, text ids), totals per currency',
  'report.html': 'this page: the charts, the summary tables and every version of the day, for a browser',
  'items.csv': 'every order of the day with its latest check: both sides, verdict, codes, signed difference',
  'mismatches.csv': 'the mismatched orders only, in the same columns as items.csv',
  'summary_orders.csv':
    'per currency and direction: counts by verdict and by provider status (failed included), gross, paid, fees, net (payments paid − fees; payouts −(amount + fees), an outflow); a total row per currency',
  'summary_rollforward.csv':
    'per currency: opening and closing balance snapshots with their times, movement by orders, timing items (count and movement), expected closing, drift, within tolerance',
  'timing_items.csv':
    "the roll-forward's timing items: orders that may have become final on either side of a snapshot, and the side each was counted on",
  'summary_journal.csv':
    'per currency: the journal’s entries, debits and credits (equal), wallet movement (= closing − opening), suspense, fees above contract, USDT totals',
  'summary_unknown_orders.csv':
    'orders the provider confirmed that we have no record of (UNKNOWN_ORDER), counted per currency and direction, with the money they moved',
  'summary_identity_mismatches.csv':
    "orders whose provider record is another order, another method or in another currency (CURRENCY, METHOD, MERCHANT_REF), per provider currency, direction and order currency, with the provider's money: in no currency's totals of summary_orders.csv",
  'summary_open_items.csv': 'open items of earlier days counted per currency and aging bucket',
  'summary_late_changes.csv': 'late changes to earlier days counted per currency',
  'summary_cases.csv':
    'the cases of the day and the lookback days per currency and code: open, acknowledged, resolved, written off, oldest open age',
  'summary_case_activity.csv': 'per currency: cases opened and resolved (by reason) during the day, and every case still open by age',
  'open_items.csv': 'orders of earlier days still pending, unchecked, in error or mismatched, with their age',
  'late_changes.csv': "orders of earlier days whose verdict or codes changed since their day's last report",
  'balances.csv': 'the balance snapshots of the day (total_excluding_credit = available + pending + held; credit is not funds)',
  'rates.csv': 'the USDT rate snapshots of the day',
  'journal.csv':
    'the day’s double-entry journal: one balanced entry per currency and kind, a role and account per line, debit/credit in the currency and in USDT (docs/guides/for-accounting.md)',
  'journal_xero.csv':
    'the journal in Xero’s manual journal import layout, in JOURNAL_BASE_CURRENCY; past 300 lines continued in journal_xero_2.csv, …',
  'journal_quickbooks.csv': 'the journal in QuickBooks Online’s journal import layout, in each entry’s currency with its exchange rate',
  'chart-mismatches-by-code.png': 'chart: mismatches by code over the last 30 business days (inline in the e-mail)',
  'chart-roll-forward.png': 'chart: roll-forward per currency (inline in the e-mail)',
  'chart-open-items-aging.png': 'chart: open items by age (inline in the e-mail)',
  'manifest.json': 'row count and SHA-256 of every file, the runs covered, the headline',
};

export function filePurpose(name: string): string {
  if (/^journal_xero_\d+\.csv$/.test(name)) return 'journal_xero.csv continued (Xero takes 300 lines per file), split between journals';
  return FILE_PURPOSES[name] ?? '';
}
