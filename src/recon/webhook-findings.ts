import type { Direction } from '../domain/types.ts';
import type { Finding, LocalOrder, NotificationFacts, OrderUpdate } from './types.ts';
import type { MismatchCode } from '../domain/verdicts.ts';

/**
 * How long the provider keeps notifying: every minute, at most 10 attempts, so the last one leaves ~9 minutes
 * after the first; 10 minutes covers that plus a slow last delivery.
 */
export const PROVIDER_RETRY_WINDOW_MS = 10 * 60_000;

/** One webhook finding per order, shaped like recon's Finding (code, local, provider, note) plus its keys. */
export interface WebhookFinding {
  direction: Direction;
  merchantRef: string | null;
  transactionRef: string | null;
  code: Extract<MismatchCode, 'WEBHOOK_MISSING' | 'WEBHOOK_CONFLICT' | 'UNKNOWN_ORDER'>;
  local: string | null;
  provider: string | null;
  note: string;
}

export interface FinalOrderSeen {
  direction: Direction;
  merchantRef: string;
  transactionRef: string;
  status: string;
  /** When payrecon saw it final: an upper bound on when the provider finalized it. */
  finalizedAt: Date;
  notified: boolean;
}

export interface MissingRule {
  now: Date;
  marginMs: number;
  retryWindowMs?: number;
}

/**
 * WEBHOOK_MISSING when an order is final, no notification for it was ever stored, and the provider's retries
 * must be over. finalizedAt is an upper bound on the provider's finalization, so finalizedAt + window + margin
 * is never too early: late orders are judged later, never falsely.
 */
export function judgeMissing(order: FinalOrderSeen, rule: MissingRule): WebhookFinding | null {
  if (order.notified) return null;
  const windowMs = rule.retryWindowMs ?? PROVIDER_RETRY_WINDOW_MS;
  const deadline = order.finalizedAt.getTime() + windowMs + rule.marginMs;
  if (rule.now.getTime() < deadline) return null;
  const minutes = Math.round((windowMs + rule.marginMs) / 60_000);
  return {
    direction: order.direction,
    merchantRef: order.merchantRef,
    transactionRef: order.transactionRef,
    code: 'WEBHOOK_MISSING',
    local: order.status,
    provider: null,
    note: `final (${order.status}) since ${order.finalizedAt.toISOString()} at the latest; no ${order.direction} notification received within ${minutes} min (provider retries plus margin)`,
  };
}

export interface UnknownOrderSeen {
  direction: Direction;
  merchantRef: string | null;
  transactionRef: string | null;
  currency: string | null;
  amount: string | null;
  status: string | null;
}

/** The provider confirmed an order the merchant has no record of: money moved that no order explains. */
export function unknownOrderFinding(u: UnknownOrderSeen): WebhookFinding {
  const what = [u.status, u.amount !== null ? `${u.amount} ${u.currency ?? ''}`.trim() : null].filter(Boolean).join(' ');
  return {
    direction: u.direction,
    merchantRef: u.merchantRef,
    transactionRef: u.transactionRef,
    code: 'UNKNOWN_ORDER',
    local: null,
    provider: what || null,
    note: `the provider confirmed ${u.direction} ${u.transactionRef} (${what || 'no values'}, merchantRef ${u.merchantRef ?? 'none'}); no local order has this transactionRef`,
  };
}

/**
 * The webhook findings of one check, judged with the rest of the order's findings: WEBHOOK_CONFLICT
 * when a notification was contradicted, WEBHOOK_MISSING when a final payment's notification is overdue.
 */
export function notificationFindings(
  local: LocalOrder,
  update: OrderUpdate | null,
  facts: NotificationFacts | undefined,
  now: Date,
): Finding[] {
  if (!facts) return [];
  const out: Finding[] = [];
  if (facts.conflict) out.push({ code: 'WEBHOOK_CONFLICT', local: local.status, provider: null, note: facts.conflict });
  const finalizedAt = local.finalizedAt ?? (update?.finalized ? now : null);
  if (facts.expected && local.direction === 'payment' && finalizedAt) {
    const missing = judgeMissing(
      {
        direction: 'payment',
        merchantRef: local.merchantRef,
        transactionRef: local.transactionRef,
        status: update?.status ?? local.status,
        finalizedAt,
        notified: facts.received,
      },
      { now, marginMs: facts.marginMs },
    );
    if (missing) out.push({ code: 'WEBHOOK_MISSING', local: missing.local, provider: null, note: missing.note });
  }
  return out;
}
