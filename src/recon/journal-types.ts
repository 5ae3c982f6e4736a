import type { Currency } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import type { JournalRole } from '../domain/journal-roles.ts';

export type JournalKind = 'payments' | 'payouts' | 'timing' | 'late' | 'fee_difference' | 'drift' | 'movement';

export interface JournalLine {
  role: JournalRole;
  /** Signed, canonical decimal text: positive debit, negative credit. */
  amount: Amount;
  /** Currency units per 1 USDT used for this line; null without a rate snapshot. */
  usdtRate: Amount | null;
  /** Signed like amount, 6 decimals; a rounding line holds only this. */
  usdt: Amount | null;
  description: string;
  /** The order's merchant ref, or what the line sums (e.g. "12 orders"). */
  sourceRef: string;
}

export interface JournalEntry {
  id: string;
  date: string;
  currency: Currency;
  kind: JournalKind;
  description: string;
  lines: JournalLine[];
}
