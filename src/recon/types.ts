import type { Currency } from '../money/decimal.ts';
import type { Amount, Direction, StatusCategory } from '../domain/types.ts';
import type { MismatchCode, Verdict } from '../domain/verdicts.ts';

/** The merchant's order as payrecon reads it from payment_orders / payout_orders. */
export interface LocalOrder {
  direction: Direction;
  merchantRef: string;
  transactionRef: string;
  currency: Currency;
  method: string;
  amount: Amount;
  /** Payments only: what the merchant last recorded as paid; null when never recorded. */
  paidAmount: Amount | null;
  fee: Amount | null;
  /** Payouts only (INR): the bank's reference once paid out. */
  utr: string | null;
  bankCode: string | null;
  status: string;
  category: StatusCategory;
  createdAt: Date;
  /** Checks completed before this one; picks the backoff step. */
  checkCount: number;
  /** When payrecon first saw it final; absent or null while open. */
  finalizedAt?: Date | null;
}

/** What the merchant's webhook receiver stored for an order, and whether notifications are expected at all. */
export interface NotificationFacts {
  received: boolean;
  /** Note of a notification its confirming fetch contradicted, if any. */
  conflict: string | null;
  /** Only when the merchant runs the receiver (WEBHOOK_EXPECTED) does a missing notification mean anything. */
  expected: boolean;
  marginMs: number;
}

/** What the provider said about the order; fields are raw text so a wrong value is reported, not rejected. */
export interface ProviderOrder {
  merchantRef: string;
  transactionRef: string;
  currency: string;
  method: string;
  amount: Amount;
  paidAmount?: Amount;
  fee: Amount;
  utr?: string;
  status: string;
  category: StatusCategory;
}

export type ProviderAnswer = { kind: 'found'; order: ProviderOrder } | { kind: 'not_found' } | { kind: 'error'; message: string };

/** One disagreement; `local`/`provider` are the two values side by side, `note` a human sentence. */
export interface Finding {
  code: MismatchCode;
  local: string | null;
  provider: string | null;
  note?: string;
}

/** Fee the provider is contracted to charge: amount × percent / 100 + fixed, then held within [min, max]. */
export interface FeeRule {
  /** "1.5" means 1.5 %. */
  percent: Amount;
  fixed: Amount;
  min?: Amount;
  max?: Amount;
}

/** One rule for a direction, or one per method ("*": any method not listed). */
export type FeeRules = FeeRule | Readonly<Record<string, FeeRule>>;

/** Age limits for orders that are not final yet, per the category they are in. */
export interface StaleLimits {
  pending: number;
  unknown: number;
}

/** A non-empty list of delays; the last one repeats. */
export type Backoff = readonly [number, ...number[]];

/**
 * Everything compareOrder needs to know beyond the two records. Plain data (except the optional
 * bank-code lookup) so it can be built from configuration and logged with a run.
 */
export interface ReconPolicy {
  /** Absolute, in the currency's units; a missing currency means exact ("0"). */
  tolerances: Partial<Record<Currency, Amount>>;
  feeSchedule?: Partial<Record<Currency, Partial<Record<Direction, FeeRules>>>>;
  staleAfterMs: Record<Direction, StaleLimits>;
  backoffMs: Record<Direction, Backoff>;
  /**
   * How old a never-checked order must be before the due sweep fetches it (0: at once). A pay-in's
   * notification and its confirming fetch usually come first, and a payout is rarely final sooner.
   */
  firstCheckMs: Record<Direction, number>;
  /** false = code not in the provider's list; undefined = no list for that currency, so nothing to say. */
  knownBankCodes?: (currency: Currency, code: string) => boolean | undefined;
}

export interface OrderUpdate {
  status: string;
  category: StatusCategory;
  paidAmount?: Amount;
  fee?: Amount;
  utr?: string;
  /** True when the order reached a final status and needs no more scheduled checks. */
  finalized: boolean;
}

export interface CheckResult {
  verdict: Verdict;
  findings: Finding[];
  /** Sorted alphabetically, unique. */
  codes: MismatchCode[];
  reason: string;
  /** What to write to the local order, or null to leave it as it is. */
  update: OrderUpdate | null;
  /** Null when the order needs no scheduled re-check (final, or final and waiting for a person). */
  nextCheckAt: Date | null;
  /**
   * What the provider says it collected and charged, kept beside the merchant's own record for the
   * settlement roll-forward (the balance moves by these, whatever the merchant recorded). Absent when
   * the provider's record may not be this order (not found, an identity finding, an error).
   */
  providerMoney?: ProviderMoney;
}

/** The provider's status category, amount, fee and (payments) paidAmount for an order, as its answer gave them. */
export interface ProviderMoney {
  category: StatusCategory;
  amount: Amount;
  fee: Amount;
  paidAmount?: Amount;
}
