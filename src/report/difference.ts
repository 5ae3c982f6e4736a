import { Decimal } from '../money/decimal.ts';
import type { ReportOrderRow } from '../db/report-orders.ts';

/** The amounts of one report row that a difference is taken from (the columns of the query's row type). */
export type DifferenceInput = Pick<
  ReportOrderRow,
  'mismatch_codes' | 'local_amount' | 'provider_amount' | 'local_paid_amount' | 'provider_paid_amount' | 'local_fee' | 'provider_fee'
>;

/**
 * The signed difference a person sums, provider minus ours, for the first money finding of the
 * row: AMOUNT (provider amount − amount), else PAID_AMOUNT (paid − amount: an underpayment is
 * negative), else FEE (provider fee − recorded fee). Null when the row has none, or a side is missing.
 */
export function moneyDifference(r: DifferenceInput): string | null {
  const codes = r.mismatch_codes.split(' ');
  const diff = (provider: string | null, local: string | null) =>
    provider === null || local === null ? null : new Decimal(provider).minus(local).toFixed();
  if (codes.includes('AMOUNT')) return diff(r.provider_amount, r.local_amount);
  if (codes.includes('PAID_AMOUNT')) return diff(r.provider_paid_amount, r.local_amount);
  if (codes.includes('FEE')) return diff(r.provider_fee, r.local_fee);
  return null;
}
