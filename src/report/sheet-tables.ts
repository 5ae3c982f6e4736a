import type { BalanceSnapshotRow, LateChangeRow, OpenItemRow, RateSnapshotRow } from '../db/reports.ts';
import { COLUMN, epochMs } from './columns.ts';
import { Decimal } from '../money/decimal.ts';
import { ageInDays, agingBucket } from './open-items.ts';
import type { Table, TableColumn, TableRow } from '../tabular/table.ts';
import { CASE_COLUMNS, type CaseColumns } from './case-cells.ts';

/**
 * open_items.csv, late_changes.csv, balances.csv and rates.csv, and the workbook's sheets of the
 * same names: one definition each, rendered by every writer (csv-cells.ts, the workbook, html).
 */

/** Open items of earlier days (see open-items.ts for what is open and how age is counted). */
export const OPEN_ITEM_TABLE_COLUMNS: readonly TableColumn[] = [
  COLUMN.business_date,
  { name: 'age_days', kind: 'count', label: 'age (days)' },
  { name: 'aging_bucket', kind: 'text', label: 'aging bucket' },
  COLUMN.direction,
  COLUMN.merchant_ref,
  COLUMN.transaction_ref,
  COLUMN.currency,
  COLUMN.method,
  COLUMN.local_status,
  COLUMN.provider_status,
  COLUMN.amount,
  COLUMN.verdict,
  COLUMN.mismatch_codes,
  ...CASE_COLUMNS,
  { name: 'last_checked_at', kind: 'datetime' },
  COLUMN.reason,
];

export function openItemTableRow(r: OpenItemRow & Partial<CaseColumns>, reportDate: string): TableRow {
  const age = ageInDays(r.business_date, reportDate);
  return [
    r.business_date,
    age,
    agingBucket(age),
    r.direction,
    r.merchant_ref,
    r.transaction_ref,
    r.currency,
    r.method,
    r.local_status,
    r.provider_status,
    r.local_amount,
    r.verdict,
    r.mismatch_codes,
    r.case_state ?? null,
    r.case_age_days ?? null,
    r.case_id ?? null,
    epochMs(r.checked_at_ms),
    r.reason,
  ];
}

/**
 * Late changes: orders of earlier business days (within RECON_LOOKBACK_DAYS) whose verdict or
 * mismatch codes differ from what the latest version of their own day's report said, e.g. a
 * provider that reversed a five-day-old success. An order stays listed until that day's report is
 * written again (`payrecon report --date <its day>`), which records the new state.
 * reported_verdict is empty when that version did not list the order (it was imported later).
 */
export const LATE_CHANGE_TABLE_COLUMNS: readonly TableColumn[] = [
  COLUMN.business_date,
  { name: 'reported_version', kind: 'count', label: 'reported in version' },
  COLUMN.direction,
  COLUMN.merchant_ref,
  COLUMN.transaction_ref,
  COLUMN.currency,
  COLUMN.amount,
  { name: 'reported_verdict', kind: 'text' },
  { name: 'reported_codes', kind: 'text', width: 22 },
  COLUMN.verdict,
  COLUMN.mismatch_codes,
  COLUMN.checked_at,
  COLUMN.reason,
];

export function lateChangeTableRow(r: LateChangeRow): TableRow {
  return [
    r.business_date,
    r.reported_version,
    r.direction,
    r.merchant_ref,
    r.transaction_ref,
    r.currency,
    r.local_amount,
    r.reported_verdict,
    r.reported_codes,
    r.verdict,
    r.mismatch_codes,
    epochMs(r.checked_at_ms),
    r.reason,
  ];
}

/** total_excluding_credit = available + pending + held: the figure the roll-forward compares (credit is a facility, not funds). */
export function balancesTable(rows: readonly BalanceSnapshotRow[]): Table {
  return {
    name: 'balances',
    title: 'Balance snapshots',
    columns: [
      COLUMN.currency,
      { name: 'taken_at', kind: 'datetime' },
      { name: 'available', kind: 'amount' },
      { name: 'pending', kind: 'amount' },
      { name: 'held', kind: 'amount' },
      { name: 'credit', kind: 'amount' },
      { name: 'total_excluding_credit', kind: 'amount', label: 'total (available + pending + held, credit excluded)', width: 24 },
      COLUMN.run_id,
    ],
    rows: rows.map((b) => [
      b.currency,
      Number(b.taken_at_ms),
      b.available,
      b.pending,
      b.held,
      b.credit,
      new Decimal(b.available).plus(b.pending).plus(b.held).toFixed(),
      b.run_id,
    ]),
  };
}

/** Rates are currency units per 1 USDT, written with the digits stored; flags are space-separated. */
export function ratesTable(rows: readonly RateSnapshotRow[]): Table {
  return {
    name: 'rates',
    title: 'USDT rate snapshots',
    columns: [
      COLUMN.currency,
      { name: 'taken_at', kind: 'datetime' },
      { name: 'deposit', kind: 'decimal' },
      { name: 'withdraw', kind: 'decimal' },
      { name: 'flags', kind: 'text' },
      COLUMN.run_id,
    ],
    rows: rows.map((r) => [r.currency, Number(r.taken_at_ms), r.deposit, r.withdraw, r.flags, r.run_id]),
  };
}
