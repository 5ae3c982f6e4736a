import type { Currency } from '../money/decimal.ts';
import type { Operation } from '../provider/types.ts';
import type { Direction } from '../domain/types.ts';

/** How orders evolve at the sandbox. Shares are probabilities per order, drawn from a seeded hash. */
export interface LifecycleOptions {
  /** Delay from payment initiate to its final status, uniformly drawn in [min, max]. */
  paymentDelayMs: { min: number; max: number };
  /** Delay from payout initiate to its final status. */
  payoutDelayMs: { min: number; max: number };
  paymentFailedShare: number;
  /** Payments that end "Success" with paidAmount below amount (payer sent less: a real provider quirk). */
  paymentPartialShare: number;
  /** Payments that stay "Pending" forever (abandoned checkout the provider never expires). */
  paymentStuckShare: number;
  payoutFailedShare: number;
  /** Payouts that stay "Initiated" forever (stuck at the bank). */
  payoutStuckShare: number;
  /** Share of INR payout successes reported with utr "" (exercises UTR_MISSING). */
  utrMissingShare: number;
}

export const DEFAULT_LIFECYCLE: Readonly<LifecycleOptions> = Object.freeze({
  paymentDelayMs: { min: 5_000, max: 120_000 },
  payoutDelayMs: { min: 30_000, max: 600_000 },
  paymentFailedShare: 0.06,
  paymentPartialShare: 0.03,
  paymentStuckShare: 0.02,
  payoutFailedShare: 0.04,
  payoutStuckShare: 0.01,
  utrMissingShare: 0.03,
});

/** Status strings the sandbox writes. The spec shows Initiated and Success; the rest are our choice. */
export const STATUS = Object.freeze({
  paymentPending: 'Pending',
  payoutPending: 'Initiated',
  success: 'Success',
  failed: 'Failed',
});

/** What the order will become when its transition is due. */
export interface PlannedFinal {
  status: string;
  paidAmount: string;
  fee: string;
  utr?: string;
}

/** One order as the provider holds it. Amounts are decimal text. */
export interface SandboxOrder {
  direction: Direction;
  merchantId: string;
  transactionRef: string;
  merchantRef: string;
  currency: Currency | string;
  method: string;
  amount: string;
  /** Payments: what the payer paid ("0" until final). Payouts: unused, "0". */
  paidAmount: string;
  fee: string;
  status: string;
  /** INR payouts only; "" until paid out. */
  utr?: string;
  bankCode?: string;
  account?: string;
  createdAt: number;
  /** Pending lifecycle target; undefined once final, or for orders stuck by scenario. */
  plan?: PlannedFinal;
  dueAt?: number;
  /** Set once the control interface edited the order: the lifecycle no longer touches it. */
  pinned?: boolean;
}

/** Fields the control interface may overwrite at the provider (amounts as decimal text). */
export interface OrderPatch {
  status?: string;
  paidAmount?: string;
  fee?: string;
  amount?: string;
  currency?: string;
  method?: string;
  merchantRef?: string;
  utr?: string;
}

export const FAULT_KINDS = [
  'latency',
  'status500',
  'status429',
  'timeout',
  'reset',
  'malformedJson',
  'htmlError',
  'hugeBody',
  'unknownStatus',
  'missingField',
  'wrongFieldType',
  'wrongTransactionRef',
  'status401',
  'status403',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  kind: FaultKind;
  /** Only these operations; all when omitted. */
  operations?: Operation[];
  /** Only requests whose body's transactionRef (or merchantRef) is listed; all when omitted. */
  transactionRefs?: string[];
  /** Only requests whose body's currency is listed (balance, rate, bank codes, initiates); all when omitted. */
  currencies?: string[];
  /** How many requests it hits before it is spent; unlimited when omitted. */
  count?: number;
  /**
   * Share of matching requests it hits, in (0, 1]; every one when omitted. Drawn per request from a
   * sequence seeded by the fault's id, so a sandbox given the same faults in the same order repeats it.
   */
  probability?: number;
  /** latency: delay in ms (default 1000). */
  latencyMs?: number;
  /** status429: Retry-After seconds; no header when omitted. */
  retryAfterSec?: number;
  /** missingField / wrongFieldType: which data field (default status / amount). */
  field?: string;
  /** unknownStatus: the status string (default "Settling"). */
  statusText?: string;
  /** hugeBody: size in bytes (default 32 MiB). */
  bytes?: number;
  /** htmlError: HTTP status (default 502). */
  httpStatus?: number;
  /** status500 / timeout / reset: perform the operation first, then lose the answer (a "did it land?" case). */
  afterProcessing?: boolean;
}

export interface WebhookAttempt {
  transactionRef: string;
  attempt: number;
  /** Sandbox clock, ms. */
  at: number;
  httpStatus?: number;
  error?: string;
  acknowledged: boolean;
}

export interface SandboxStats {
  now: number;
  requests: Record<Operation, number> & { total: number };
  faultsApplied: number;
  orders: { payments: number; payouts: number; seeded: number };
  webhooks: { queued: number; delivered: number; gaveUp: number; attempts: WebhookAttempt[] };
  /** The per-merchant rate limit, the 429s it answered, and the busiest one-second window and calendar second of arrivals. */
  rate: {
    limitPerSec: number | null;
    throttled: number;
    busiestWindow: number;
    busiestSecond: number;
    /** Each merchant served: the limit its requests meet, and its 429s. */
    perMerchant: Record<string, { limitPerSec: number | null; throttled: number }>;
  };
}
