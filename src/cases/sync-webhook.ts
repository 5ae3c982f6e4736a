import type { Knex } from '../db/knex-types.ts';
import { orderSubject, unknownOrderSubject } from '../db/cases.ts';
import type { OrderRow } from '../db/orders.ts';
import { isFinalCategory } from '../domain/status.ts';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';
import type { Direction, StatusCategory } from '../domain/types.ts';
import { observeCase, type ObserveResult } from './observe.ts';

/** What the confirming fetch said about the notified order. */
export interface ConfirmedOrder {
  transactionRef: string;
  merchantRef: string;
  currency: string;
  amount: string;
  status: string;
  category: StatusCategory;
}

/**
 * The cases a confirmed notification opens, in the confirming transaction: UNKNOWN_ORDER when the
 * provider confirmed an order the merchant has no record of, STATUS when a final local order is now
 * final the other way at the provider (a reversal). Null when it opens none.
 */
export async function syncWebhookCases(
  trx: Knex.Transaction,
  direction: Direction,
  local: OrderRow | null,
  f: ConfirmedOrder,
  receivedAt: Date,
  at: Date,
  /** The account whose secret signed the notification (webhook_events.account_id). */
  accountId: string = DEFAULT_ACCOUNT_ID,
): Promise<ObserveResult | null> {
  if (!local) {
    const subject = {
      subject: unknownOrderSubject(direction, f.transactionRef),
      code: 'UNKNOWN_ORDER',
      accountId,
      direction,
      merchantRef: f.merchantRef,
      transactionRef: f.transactionRef,
      currency: f.currency,
      occurredAt: receivedAt,
    };
    return observeCase(trx, subject, { kind: 'finding' }, at, {
      local: null,
      provider: `${f.status} ${f.amount}`,
      note: `provider confirmed ${direction} ${f.transactionRef} (${f.status}, ${f.currency} ${f.amount}) that has no order here`,
    });
  }
  if (!isFinalCategory(local.statusCategory) || !isFinalCategory(f.category) || local.statusCategory === f.category) return null;
  const subject = {
    subject: orderSubject(direction, local.id),
    code: 'STATUS',
    accountId,
    direction,
    orderId: local.id,
    merchantRef: local.merchantRef,
    transactionRef: local.transactionRef,
    currency: local.currency,
    occurredAt: local.createdAt,
  };
  return observeCase(trx, subject, { kind: 'finding' }, at, {
    local: local.status,
    provider: f.status,
    note: `local ${local.statusCategory} (${local.status}), provider now ${f.category} (${f.status}): notified and confirmed`,
  });
}
