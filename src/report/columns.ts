import type { TableColumn } from '../tabular/table.ts';

/**
 * Columns several report tables share, described once (name, kind, label, width), so a column
 * reads, types and sizes the same in items, mismatches, open items, late changes and the summary
 * tables, in every file and sheet.
 */
const column = <N extends string>(name: N, kind: TableColumn['kind'], more: Omit<TableColumn, 'name' | 'kind'> = {}) =>
  ({ name, kind, ...more }) as TableColumn & { name: N };

export const COLUMN = {
  business_date: column('business_date', 'text', { width: 12 }),
  direction: column('direction', 'text', { width: 10 }),
  merchant_ref: column('merchant_ref', 'text'),
  transaction_ref: column('transaction_ref', 'text'),
  currency: column('currency', 'text', { width: 9 }),
  method: column('method', 'text'),
  local_status: column('local_status', 'text'),
  provider_status: column('provider_status', 'text'),
  /** The order's own amount. */
  amount: column('amount', 'amount'),
  verdict: column('verdict', 'text', { width: 11 }),
  mismatch_codes: column('mismatch_codes', 'text', { width: 22 }),
  checked_at: column('checked_at', 'datetime'),
  run_id: column('run_id', 'text', { width: 8 }),
  reason: column('reason', 'text'),
} as const;

/** Epoch milliseconds as the database selects them (bigint text), for a datetime column. */
export const epochMs = (v: string | null): number | null => (v === null ? null : Number(v));
