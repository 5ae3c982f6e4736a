import type { OrderRow } from '../db/orders.ts';
import type { ReconItemRow } from '../db/items.ts';
import { stateOf, type CheckUpdate } from '../db/orders.ts';
import { compareOrder } from '../recon/compare.ts';
import { isFinalCategory } from '../domain/status.ts';
import type { CheckResult, LocalOrder, NotificationFacts, ProviderAnswer, ReconPolicy } from '../recon/types.ts';

/** The local order as the pure core sees it. */
export function toLocalOrder(order: OrderRow): LocalOrder {
  return {
    direction: order.direction,
    merchantRef: order.merchantRef,
    transactionRef: order.transactionRef,
    currency: order.currency,
    method: order.method,
    amount: order.amount,
    paidAmount: order.paidAmount,
    fee: order.fee,
    utr: order.utr,
    bankCode: order.bankCode,
    status: order.status,
    category: order.statusCategory,
    createdAt: order.createdAt,
    checkCount: order.checkCount,
    finalizedAt: order.finalizedAt,
  };
}

export interface CheckToWrite {
  item: Omit<ReconItemRow, 'runId'>;
  update: CheckUpdate;
  result: CheckResult;
}

/**
 * Compares one order with the provider's answer and shapes the rows to write. askedAt (when the
 * fetch was sent) is recorded as open_seen_at when the provider says the order is still open (final in
 * the merchant's books or not): the start of its finality interval, which the settlement roll-forward
 * needs. The provider's status category is stored beside the merchant's (provider_category); the first
 * check that sees it success ends the interval (provider_success_at, set by applyCheckResults).
 */
export function checkOrder(
  order: OrderRow,
  answer: ProviderAnswer,
  policy: ReconPolicy,
  now: Date,
  askedAt?: Date,
  notifications?: NotificationFacts,
): CheckToWrite {
  const result = compareOrder(toLocalOrder(order), answer, policy, now, notifications);
  const provider = answer.kind === 'found' ? answer.order : null;
  const item: Omit<ReconItemRow, 'runId'> = {
    direction: order.direction,
    orderId: order.id,
    merchantRef: order.merchantRef,
    transactionRef: order.transactionRef,
    currency: order.currency,
    method: order.method,
    checkedAt: now,
    localStatus: order.status,
    localCategory: order.statusCategory,
    localAmount: order.amount,
    localPaidAmount: order.paidAmount,
    localFee: order.fee,
    localUtr: order.utr,
    providerStatus: provider?.status ?? null,
    providerCategory: provider?.category ?? null,
    providerCurrency: provider?.currency ?? null,
    providerAmount: provider?.amount ?? null,
    providerPaidAmount: provider?.paidAmount ?? null,
    providerFee: provider?.fee ?? null,
    providerUtr: provider?.utr ?? null,
    verdict: result.verdict,
    codes: result.codes,
    details: result.findings,
    reason: result.reason,
  };
  const u = result.update;
  // Open at the provider, whatever the merchant recorded: the provider's word starts the finality interval.
  const seenOpen = result.providerMoney !== undefined && !isFinalCategory(result.providerMoney.category);
  // Fields assigned one by one, not spread from small objects: this runs for every order of a run.
  const update: CheckUpdate = { id: order.id, expected: stateOf(order), checkedAt: now, nextCheckAt: result.nextCheckAt };
  if (seenOpen) update.openSeenAt = askedAt ?? now;
  const money = result.providerMoney;
  if (money) {
    update.providerCategory = money.category;
    update.providerAmount = money.amount;
    update.providerFee = money.fee;
    if (money.paidAmount !== undefined) update.providerPaidAmount = money.paidAmount;
  }
  if (u) {
    update.status = u.status;
    update.statusCategory = u.category;
    if (u.fee !== undefined) update.fee = u.fee;
    if (order.direction === 'payment') update.paidAmount = u.paidAmount;
    else update.utr = u.utr;
    update.finalizedAt = u.finalized ? now : undefined;
    update.updatedAt = now;
  }
  return { item, update, result };
}

/**
 * The check recorded when the database refused what an order's check would write: an error for this
 * order alone (nothing learnt is stored, re-checked at the first backoff step), the reason saying which value.
 */
export function refusedCheck(order: OrderRow, message: string, policy: ReconPolicy, now: Date): CheckToWrite {
  const c = checkOrder(order, { kind: 'error', message }, policy, now);
  return { ...c, result: { ...c.result, reason: message }, item: { ...c.item, reason: message } };
}
