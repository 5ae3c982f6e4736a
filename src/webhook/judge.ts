import { Decimal, isDecimalText } from '../money/decimal.ts';
import type { OrderRow } from '../db/orders.ts';
import type { ConfirmedFinal, FetchedFields } from '../db/webhook-events.ts';
import { isFinalCategory, type StatusMapper } from '../domain/status.ts';
import { identityFindings } from '../recon/checks.ts';
import type { ReconPolicy } from '../recon/types.ts';
import { toLocalOrder } from '../reconcile/check-order.ts';
import type { StatusCategory } from '../domain/types.ts';
import type { Notification } from './payload.ts';

/** What the matching fetch answered, amounts as decimal text: the fields stored with the event (FetchedFields), and what judging needs besides. */
export interface FetchedOrder extends FetchedFields {
  transactionRef: string;
  category: StatusCategory;
  utr?: string;
}

const sameAmount = (a: string, b: string): boolean => isDecimalText(a) && isDecimalText(b) && new Decimal(a).equals(new Decimal(b));

/**
 * Does the fetch confirm the notification? Compared: status category (not the raw string, so "SUCCESS" and
 * "Success" agree) and every field the notification carries. Returns the disagreements, empty when confirmed.
 */
export function contradictions(n: Notification, f: FetchedOrder, mapStatus: StatusMapper): string[] {
  const out: string[] = [];
  if (n.status !== null && mapStatus(n.status) !== f.category) {
    out.push(`status: notified ${n.status} (${mapStatus(n.status)}), provider says ${f.status} (${f.category})`);
  }
  const amounts: Array<[string, string | null, string | undefined]> = [
    ['amount', n.amount, f.amount],
    ['paidAmount', n.paidAmount, f.paidAmount],
    ['fee', n.fee, f.fee],
  ];
  for (const [field, notified, fetched] of amounts) {
    if (notified === null) continue;
    if (fetched === undefined || !sameAmount(notified, fetched))
      out.push(`${field}: notified ${notified}, provider says ${fetched ?? 'nothing'}`);
  }
  const texts: Array<[string, string | null, string]> = [
    ['merchantRef', n.merchantRef, f.merchantRef],
    ['currency', n.currency, f.currency],
    ['method', n.method, f.method],
  ];
  for (const [field, notified, fetched] of texts) {
    if (notified !== null && notified !== fetched) out.push(`${field}: notified ${notified}, provider says ${fetched}`);
  }
  return out;
}

/**
 * follow-up for a person: `unknown_order` the provider confirmed an order payrecon has no record of;
 * `recheck` it contradicts a final local status (the order is re-checked and the contradiction alerted).
 */
export type OrderPlan = { apply: ConfirmedFinal; note: string } | { apply: null; note: string; follow?: 'unknown_order' | 'recheck' };

/**
 * Given a confirmed notification, what to write to the local order. Only a non-final local order that is
 * the same order by reconcile's own identity rules (currency, method, merchantRef, amount within the
 * tolerance) moves, and only to a final status; anything else is left for reconcile to report.
 */
export function planOrderUpdate(local: OrderRow | null, f: FetchedOrder, at: Date, policy: ReconPolicy): OrderPlan {
  if (!local) return { apply: null, note: 'confirmed; no local order with this transactionRef', follow: 'unknown_order' };
  if (!isFinalCategory(f.category))
    return { apply: null, note: `confirmed; provider status ${f.status} is not final, order left as it is` };
  if (isFinalCategory(local.statusCategory)) {
    const same = local.statusCategory === f.category;
    if (same) return { apply: null, note: `confirmed; local order already final (${local.status})` };
    return {
      apply: null,
      note: `confirmed; local order already final (${local.status}), provider says ${f.status}: left for reconcile, re-check requested`,
      follow: 'recheck',
    };
  }
  const identity = identityFindings(toLocalOrder(local), f, policy);
  if (identity.length) {
    const why = identity.map((x) => `${x.code}: ${x.note ?? `${x.local} here, ${x.provider} at provider`}`).join('; ');
    return { apply: null, note: `confirmed; not the order payrecon has (${why}): not updated, left for reconcile` };
  }
  // Reconcile's rule: only what the merchant did not record is taken from the provider; a recorded value
  // that disagrees stays, and the order is asked to be re-checked so the finding is raised (and kept).
  const apply: ConfirmedFinal = { status: f.status, statusCategory: f.category, providerFee: f.fee, at };
  const taken: string[] = [];
  const kept: string[] = [];
  if (local.fee === null) {
    apply.fee = f.fee;
    taken.push(`fee ${f.fee}`);
  } else if (!sameAmount(local.fee, f.fee)) kept.push(`fee ${local.fee} (provider ${f.fee})`);
  if (local.direction === 'payment') {
    if (f.paidAmount !== undefined) apply.providerPaidAmount = f.paidAmount;
    if (local.paidAmount === null && f.paidAmount !== undefined) {
      apply.paidAmount = f.paidAmount;
      taken.push(`paidAmount ${f.paidAmount}`);
    } else if (local.paidAmount !== null && (f.paidAmount === undefined || !sameAmount(local.paidAmount, f.paidAmount)))
      kept.push(`paidAmount ${local.paidAmount} (provider ${f.paidAmount ?? 'none'})`);
  } else {
    const utr = f.utr?.trim();
    if (utr && !local.utr?.trim()) {
      apply.utr = utr;
      taken.push(`utr ${utr}`);
    } else if (utr && local.utr?.trim() !== utr) kept.push(`utr ${local.utr} (provider ${utr})`);
  }
  if (kept.length) apply.recheck = true;
  const note = [
    `confirmed; order updated to ${f.status}`,
    taken.length && `${taken.join(', ')} taken from the provider (none recorded)`,
    kept.length && `recorded ${kept.join(', ')} kept, re-check requested`,
  ].filter(Boolean);
  return { apply, note: note.join('; ') };
}
