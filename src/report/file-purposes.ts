import { REPORT_TABLES } from './report-tables.ts';

/** What each file of a report version is for, as report.html and docs/reference/report-files.md say it: the tables' from their index. */
export const FILE_PURPOSES: Readonly<Record<string, string>> = {
  'reconciliation.xlsx': 'the workbook: every table below as typed sheets (numbers, dates, text ids), totals per currency',
  'report.html': 'this page: the charts, the summary tables and every version of the day, for a browser',
  ...Object.fromEntries(REPORT_TABLES.map((t) => [`${t.name}.csv`, t.purpose])),
  'chart-mismatches-by-code.png': 'chart: mismatches by code over the last 30 business days (inline in the e-mail)',
  'chart-roll-forward.png': 'chart: roll-forward per currency (inline in the e-mail)',
  'chart-open-items-aging.png': 'chart: open items by age (inline in the e-mail)',
  'manifest.json': 'row count and SHA-256 of every file, the runs covered, the headline',
};

export function filePurpose(name: string): string {
  if (/^journal_xero_\d+\.csv$/.test(name)) return 'journal_xero.csv continued (Xero takes 300 lines per file), split between journals';
  return FILE_PURPOSES[name] ?? '';
}
