import { Decimal } from '../money/decimal.ts';
import type { BalanceSnapshotRow, RateSnapshotRow } from '../db/reports.ts';
import { amountCell, decimalCell } from './format.ts';
import { textCell } from './neutralize.ts';

/** total = available + pending + held: the figure the roll-forward compares (credit is a facility, not funds). */
export const BALANCE_COLUMNS = [
  'currency',
  'taken_at',
  'available',
  'pending',
  'held',
  'credit',
  'total_excluding_credit',
  'run_id',
] as const;
/** Rates are currency units per 1 USDT, written with the digits stored; flags are space-separated. */
export const RATE_COLUMNS = ['currency', 'taken_at', 'deposit', 'withdraw', 'flags', 'run_id'] as const;

export function balanceRow(b: BalanceSnapshotRow, formatTime: (epochMs: number) => string): string[] {
  const total = new Decimal(b.available).plus(b.pending).plus(b.held);
  return [
    textCell(b.currency),
    formatTime(Number(b.taken_at_ms)),
    amountCell(b.available, b.currency),
    amountCell(b.pending, b.currency),
    amountCell(b.held, b.currency),
    amountCell(b.credit, b.currency),
    amountCell(total, b.currency),
    b.run_id ?? '',
  ];
}

export function rateRow(r: RateSnapshotRow, formatTime: (epochMs: number) => string): string[] {
  return [
    textCell(r.currency),
    formatTime(Number(r.taken_at_ms)),
    decimalCell(r.deposit),
    decimalCell(r.withdraw),
    textCell(r.flags),
    r.run_id ?? '',
  ];
}
