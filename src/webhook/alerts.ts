import type { OrderRow } from '../db/orders.ts';
import type { WebhookEventRow } from '../db/webhook-events.ts';
import type { AlertInput } from '../notify/raise-alert.ts';
import type { FetchedOrder } from './judge.ts';
import { formatAmount, isCurrency, isDecimalText } from '../money/decimal.ts';

/** Money as a person reads it: the currency's decimals, or every digit when finer (never rounded away). */
const money = (amount: string, currency: string): string =>
  isCurrency(currency) && isDecimalText(amount) && (amount.split('.')[1] ?? '').length <= 2
    ? `${formatAmount(amount, currency)} ${currency}`
    : `${amount} ${currency}`;

/** The provider confirmed money for an order the merchant has no record of. One alert per transactionRef. */
export function alertForUnknownOrder(event: WebhookEventRow, f: FetchedOrder): AlertInput {
  return {
    kind: 'unknown_order',
    fingerprintParts: [event.direction, f.transactionRef],
    title: `UNKNOWN_ORDER: the provider confirmed ${event.direction} ${f.transactionRef} (${f.status}, ${money(f.amount, f.currency)}, merchantRef ${f.merchantRef}); no local order has it`,
    payload: {
      code: 'UNKNOWN_ORDER',
      direction: event.direction,
      transactionRef: f.transactionRef,
      merchantRef: f.merchantRef,
      currency: f.currency,
      amount: f.amount,
      paidAmount: f.paidAmount ?? null,
      fee: f.fee,
      status: f.status,
      eventId: event.id,
    },
  };
}

/** The provider confirmed a status that contradicts a final local one (a reversal of a Success, say). */
export function alertForContradictedFinal(event: WebhookEventRow, f: FetchedOrder, local: OrderRow): AlertInput {
  return {
    kind: 'final_status_contradicted',
    fingerprintParts: [event.direction, f.transactionRef, f.status],
    title: `STATUS: ${event.direction} ${f.transactionRef} (merchantRef ${local.merchantRef}) is ${local.status} here, the provider confirmed ${f.status}; re-check requested`,
    payload: {
      code: 'STATUS',
      direction: event.direction,
      transactionRef: f.transactionRef,
      merchantRef: local.merchantRef,
      local: local.status,
      provider: f.status,
      finalizedAt: local.finalizedAt?.toISOString() ?? null,
      eventId: event.id,
    },
  };
}
