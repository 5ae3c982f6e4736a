import type { Currency } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import type { JournalRole } from '../domain/journal-roles.ts';

export type JournalKind =
  'payments' | 'payouts' | 'timing' | 'late' | 'fee_difference' | 'short_payment' | 'drift' | 'movement' | 'fx_revaluation';

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

/** A late change's order, so the ledger can keep it out of its own day's figures on a rerun. */
export interface LateOrderRef {
  direction: 'payment' | 'payout';
  orderId: string;
  /** The business day the order's success was counted in (its finality), YYYY-MM-DD. */
  countedOn: string;
  /** When a check first saw the change (ISO). */
  observedAt: string;
}

export interface JournalEntry {
  /** What the ledger knows the entry by across versions (src/recon/posting.ts): "day:D:CUR:kind", "late:kind:direction:orderId". */
  key: string;
  id: string;
  date: string;
  currency: Currency;
  kind: JournalKind;
  description: string;
  lines: JournalLine[];
  late?: LateOrderRef;
}
