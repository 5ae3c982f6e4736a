import type { LateChangeRow } from '../db/reports.ts';
import { amountCell } from './format.ts';
import { textCell } from './neutralize.ts';

/**
 * late_changes.csv: orders of earlier business days (within RECON_LOOKBACK_DAYS) whose verdict or
 * mismatch codes differ from what the latest version of their own day's report said, e.g. a
 * provider that reversed a five-day-old success. An order stays listed until that day's report is
 * written again (`payrecon report --date <its day>`), which records the new state.
 * reported_verdict is empty when that version did not list the order (it was imported later).
 */
export const LATE_CHANGE_COLUMNS = [
  'business_date',
  'reported_version',
  'direction',
  'merchant_ref',
  'transaction_ref',
  'currency',
  'amount',
  'reported_verdict',
  'reported_codes',
  'verdict',
  'mismatch_codes',
  'checked_at',
  'reason',
] as const;

export function lateChangeRow(r: LateChangeRow, formatTime: (epochMs: number) => string): string[] {
  return [
    r.business_date,
    String(r.reported_version),
    textCell(r.direction),
    textCell(r.merchant_ref),
    textCell(r.transaction_ref),
    textCell(r.currency),
    amountCell(r.local_amount, r.currency),
    textCell(r.reported_verdict),
    textCell(r.reported_codes),
    textCell(r.verdict),
    textCell(r.mismatch_codes),
    r.checked_at_ms === null ? '' : formatTime(Number(r.checked_at_ms)),
    textCell(r.reason),
  ];
}
