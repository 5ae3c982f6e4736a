import type { CheckedOrderRow, CheckUpdate } from '../db/orders.ts';
import type { ReconItemRow } from '../db/items.ts';
import { compareOrder } from '../recon/compare.ts';
import { isFinalCategory } from '../domain/status.ts';
import type { CheckResult, LocalOrder, NotificationFacts, ProviderAnswer, ReconPolicy } from '../recon/types.ts';

/** The local order as the pure core sees it. */
export function toLocalOrder(order: CheckedOrderRow): LocalOrder {
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
  order: CheckedOrderRow,
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
  const money = result.providerMoney;
  // Open at the provider, whatever the merchant recorded: the provider's word starts the finality interval.
  const seenOpen = money !== undefined && !isFinalCategory(money.category);
  // Every field in one literal, unset ones undefined: every update has one shape, so the batch's column
  // readers stay monomorphic. `expected` is the order itself (its state fields are what the write checks).
  const update: CheckUpdate = {
    id: order.id,
    expected: order,
    checkedAt: now,
    nextCheckAt: result.nextCheckAt,
    status: u?.status,
    statusCategory: u?.category,
    paidAmount: u && order.direction === 'payment' ? u.paidAmount : undefined,
    fee: u?.fee,
    utr: u && order.direction === 'payout' ? u.utr : undefined,
    finalizedAt: u?.finalized ? now : undefined,
    providerCategory: money?.category,
    providerAmount: money?.amount,
    providerFee: money?.fee,
    providerPaidAmount: money?.paidAmount,
    openSeenAt: seenOpen ? (askedAt ?? now) : undefined,
    updatedAt: u ? now : undefined,
  };
  return { item, update, result };
}

/**
 * The check recorded when the database refused what an order's check would write: an error for this
 * order alone (nothing learnt is stored, re-checked at the first backoff step), the reason saying which value.
 */
export function refusedCheck(order: CheckedOrderRow, message: string, policy: ReconPolicy, now: Date): CheckToWrite {
  const c = checkOrder(order, { kind: 'error', message }, policy, now);
  return { ...c, result: { ...c.result, reason: message }, item: { ...c.item, reason: message } };
}
