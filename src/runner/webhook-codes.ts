import type { OrderRow } from '../db/orders.ts';
import { judgeMissing } from '../webhook/missing.ts';
import type { Finding, MismatchCode } from '../recon/types.ts';
import type { CheckToWrite } from './check-order.ts';

/** What the merchant's receiver stored for one order. */
export interface NotificationState {
  received: boolean;
  /** Note of a notification its confirming fetch contradicted, if any. */
  conflict: string | null;
}

export interface WebhookRule {
  /** Only when the merchant runs the receiver (WEBHOOK_EXPECTED) does a missing notification mean anything. */
  expectWebhooks: boolean;
  marginMs: number;
  now: Date;
}

/**
 * Adds WEBHOOK_CONFLICT and WEBHOOK_MISSING to a checked order, so they travel with the order's item
 * into the reports and alerts like every other code. Pure.
 */
export function withWebhookCodes(
  order: OrderRow,
  checked: CheckToWrite,
  state: NotificationState | undefined,
  rule: WebhookRule,
): CheckToWrite {
  const extra: Finding[] = [];
  if (state?.conflict) extra.push({ code: 'WEBHOOK_CONFLICT', local: order.status, provider: null, note: state.conflict });
  const finalizedAt = order.finalizedAt ?? (checked.result.update?.finalized ? rule.now : null);
  if (rule.expectWebhooks && order.direction === 'payment' && finalizedAt) {
    const missing = judgeMissing(
      {
        direction: 'payment',
        merchantRef: order.merchantRef,
        transactionRef: order.transactionRef,
        status: checked.result.update?.status ?? order.status,
        finalizedAt,
        notified: state?.received ?? false,
      },
      { now: rule.now, marginMs: rule.marginMs },
    );
    if (missing) extra.push({ code: 'WEBHOOK_MISSING', local: missing.local, provider: null, note: missing.note });
  }
  if (extra.length === 0) return checked;
  const findings = [...checked.result.findings, ...extra];
  const codes = [...new Set<MismatchCode>([...checked.result.codes, ...extra.map((f) => f.code)])].sort();
  const verdict = checked.result.verdict === 'error' ? 'error' : 'mismatch';
  const reason = [checked.result.reason, ...extra.map((f) => f.note)].filter(Boolean).join('; ');
  return {
    ...checked,
    result: { ...checked.result, findings, codes, verdict, reason },
    item: { ...checked.item, codes, details: findings, verdict, reason },
  };
}
