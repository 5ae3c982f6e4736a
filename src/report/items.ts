import type { ReportItemRow } from '../db/reports.ts';
import { amountCell } from './format.ts';
import { textCell } from './neutralize.ts';

/** items.csv and mismatches.csv share these columns. */
export const ITEM_COLUMNS = [
  'run_id',
  'checked_at',
  'direction',
  'merchant_ref',
  'transaction_ref',
  'currency',
  'method',
  'local_status',
  'provider_status',
  'local_amount',
  'provider_amount',
  'local_paid_amount',
  'provider_paid_amount',
  'local_fee',
  'provider_fee',
  'utr',
  'verdict',
  'mismatch_codes',
  'reason',
] as const;

/**
 * One CSV row. Text columns are neutralised against formula injection; amounts are
 * fixed-decimal numbers; `utr` is the provider's, else the merchant's; mismatch_codes
 * are space-separated. An order never checked has no run_id or checked_at, its own
 * status and amounts as the local ones, and the verdict `unchecked`.
 */
export function itemRow(r: ReportItemRow, formatTime: (epochMs: number) => string): string[] {
  const cur = r.currency;
  return [
    r.run_id ?? '',
    r.checked_at_ms === null ? '' : formatTime(Number(r.checked_at_ms)),
    textCell(r.direction),
    textCell(r.merchant_ref),
    textCell(r.transaction_ref),
    textCell(cur),
    textCell(r.method),
    textCell(r.local_status),
    textCell(r.provider_status),
    amountCell(r.local_amount, cur),
    amountCell(r.provider_amount, cur),
    amountCell(r.local_paid_amount, cur),
    amountCell(r.provider_paid_amount, cur),
    amountCell(r.local_fee, cur),
    amountCell(r.provider_fee, cur),
    textCell(r.utr),
    textCell(r.verdict),
    textCell(r.mismatch_codes),
    textCell(r.reason),
  ];
}
