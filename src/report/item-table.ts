import { moneyDifference } from './difference.ts';
import { COLUMN, epochMs } from './columns.ts';
import type { TableColumn, TableRow } from '../tabular/table.ts';
import { CASE_COLUMNS, type CaseColumns } from './case-cells.ts';
import type { ReportOrderRow } from '../db/report-orders.ts';

/**
 * items.csv, mismatches.csv and the workbook's Items and Mismatches sheets: what a person reads
 * first (day, direction, ref, codes, difference, currency), then both sides' values, then the rest.
 */
export const ITEM_TABLE_COLUMNS: readonly TableColumn[] = [
  COLUMN.business_date,
  COLUMN.direction,
  COLUMN.merchant_ref,
  COLUMN.mismatch_codes,
  { name: 'difference', kind: 'amount' },
  COLUMN.currency,
  { name: 'local_amount', kind: 'amount' },
  { name: 'provider_amount', kind: 'amount' },
  { name: 'local_paid_amount', kind: 'amount' },
  { name: 'provider_paid_amount', kind: 'amount' },
  { name: 'local_fee', kind: 'amount' },
  { name: 'provider_fee', kind: 'amount' },
  COLUMN.local_status,
  COLUMN.provider_status,
  COLUMN.verdict,
  ...CASE_COLUMNS,
  COLUMN.method,
  COLUMN.transaction_ref,
  // IFSC codes are 11 characters; room for the filter button beside the header.
  { name: 'bank_code', kind: 'text', width: 16 },
  { name: 'utr', kind: 'text', width: 16 },
  { name: 'created_at', kind: 'datetime' },
  { name: 'finalized_at', kind: 'datetime' },
  COLUMN.checked_at,
  COLUMN.run_id,
  COLUMN.reason,
];

/**
 * The fields of a report order row the item table prints (the row type is the query's, ReportOrderRow);
 * the case columns are empty when left out. UNKNOWN_ORDER rows (unknown-orders.ts) fill the same shape.
 */
export type ItemSource = Omit<ReportOrderRow, 'order_id' | 'provider_category' | 'provider_currency'> & Partial<CaseColumns>;

export function itemTableRow(r: ItemSource, businessDate: string): TableRow {
  return [
    businessDate,
    r.direction,
    r.merchant_ref,
    r.mismatch_codes,
    r.mismatch_codes === '' ? null : moneyDifference(r),
    r.currency,
    r.local_amount,
    r.provider_amount,
    r.local_paid_amount,
    r.provider_paid_amount,
    r.local_fee,
    r.provider_fee,
    r.local_status,
    r.provider_status,
    r.verdict,
    r.case_state ?? null,
    r.case_age_days ?? null,
    r.case_id ?? null,
    r.method,
    r.transaction_ref,
    r.bank_code,
    r.utr,
    epochMs(r.created_at_ms),
    epochMs(r.finalized_at_ms),
    epochMs(r.checked_at_ms),
    r.run_id,
    r.reason,
  ];
}
