import { ROLLFORWARD_SUMMARY, TIMING_ITEMS } from './rollforward-tables.ts';
import { LATE_CHANGES_SUMMARY, OPEN_ITEMS_SUMMARY, ORDERS_SUMMARY } from './summary-tables.ts';
import type { TableSpec } from './table.ts';
import { IDENTITY_MISMATCHES_SUMMARY } from './identity-mismatches.ts';
import { JOURNAL_SUMMARY } from './journal-summary.ts';
import { CASE_ACTIVITY, CASES_SUMMARY, UNKNOWN_ORDERS_SUMMARY } from './case-tables.ts';

/** The summary tables in reading order, one CSV file each (`<name>.csv`, manifest.ts SUMMARY_FILES). */
export const SUMMARY_SPECS: readonly TableSpec[] = [
  ORDERS_SUMMARY,
  ROLLFORWARD_SUMMARY,
  TIMING_ITEMS,
  JOURNAL_SUMMARY,
  UNKNOWN_ORDERS_SUMMARY,
  IDENTITY_MISMATCHES_SUMMARY,
  OPEN_ITEMS_SUMMARY,
  LATE_CHANGES_SUMMARY,
  CASES_SUMMARY,
  CASE_ACTIVITY,
];
