import type { Db } from '../db/connect.ts';
import { confirmedWithoutOrder, conflictsReceived, finalPaymentsWithoutNotification } from '../db/webhook-events.ts';
import { conflictFinding, judgeMissing, unknownOrderFinding, type WebhookFinding } from '../recon/webhook-findings.ts';

export interface WebhookFindingsQuery {
  /** Orders payrecon saw final, and notifications received, in [from, to). */
  from: Date;
  to: Date;
  now: Date;
  /** WEBHOOK_MISSING_MARGIN_MIN in ms: slack on top of the provider's ~10 minutes of retries. */
  marginMs: number;
  retryWindowMs?: number;
}

/**
 * WEBHOOK_MISSING (payments only: the payout webhook's retry rule is not specified, so its absence proves
 * nothing), WEBHOOK_CONFLICT and UNKNOWN_ORDER findings for a period, in that order, each group in order id / event id order.
 */
export async function findWebhookFindings(db: Db, q: WebhookFindingsQuery): Promise<WebhookFinding[]> {
  const out: WebhookFinding[] = [];
  for (const o of await finalPaymentsWithoutNotification(db.knex, q.from, q.to)) {
    const f = judgeMissing(
      {
        direction: 'payment',
        merchantRef: o.merchantRef,
        transactionRef: o.transactionRef,
        status: o.status,
        finalizedAt: o.finalizedAt!,
        notified: false,
      },
      { now: q.now, marginMs: q.marginMs, retryWindowMs: q.retryWindowMs },
    );
    if (f) out.push(f);
  }
  for (const c of await conflictsReceived(db.knex, q.from, q.to)) {
    const notified = [c.status, c.amount, c.paidAmount !== null ? `paid ${c.paidAmount}` : null, c.fee !== null ? `fee ${c.fee}` : null]
      .filter(Boolean)
      .join(' ');
    out.push(
      conflictFinding({
        direction: c.direction,
        merchantRef: c.localMerchantRef ?? c.merchantRef,
        transactionRef: c.transactionRef,
        notified: notified || 'notification',
        note: c.confirmationNote,
      }),
    );
  }
  for (const e of await confirmedWithoutOrder(db.knex, q.from, q.to)) out.push(unknownOrderFinding(e));
  return out;
}
