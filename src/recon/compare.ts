import { isFinalCategory } from '../domain/status.ts';
import { show, toleranceFor } from './amounts.ts';
import {
  IDENTITY_CHECKS,
  runChecks,
  VALUE_CHECKS,
  checkBankCode,
  checkStale,
  describeProviderStatus,
  notFoundFinding,
  type CheckContext,
} from './checks.ts';
import { nextCheckDelayMs } from './timing.ts';
import { notificationFindings } from './webhook-findings.ts';
import type {
  CheckResult,
  Finding,
  LocalOrder,
  NotificationFacts,
  OrderUpdate,
  ProviderAnswer,
  ProviderMoney,
  ProviderOrder,
  ReconPolicy,
} from './types.ts';
import type { MismatchCode, Verdict } from '../domain/verdicts.ts';

/**
 * Compares one local order with the provider's answer. Pure: `now` is the run's clock.
 *
 * Choices made for the finance team:
 * - A final local status is never changed here; a provider that disagrees is a STATUS mismatch.
 * - A not-final order is brought up to date with the provider even when values disagree (its
 *   status moves; an underpaid payment with no paidAmount recorded gets what was actually paid),
 *   and the disagreement is still reported as a mismatch. A value the merchant recorded is never
 *   overwritten by a provider value: the next check would find the two equal and clear the finding. The exception is an identity mismatch (currency, method,
 *   merchantRef, amount): then nothing is written, see IDENTITY_CHECKS.
 * - A mismatch on an order that is final after this check gets no scheduled re-check: a person
 *   handles it (explicit reruns still look at it). Orders still open keep their backoff, and so does
 *   an order final in the merchant's books that the provider still reports open: the provider's word
 *   moves the balance, so payrecon keeps asking until the provider's status is final too.
 */
export function compareOrder(
  local: LocalOrder,
  answer: ProviderAnswer,
  policy: ReconPolicy,
  now: Date,
  notifications?: NotificationFacts,
): CheckResult {
  if (answer.kind === 'error')
    return errorResult(local, answer.message, policy, now, notificationFindings(local, null, notifications, now));

  const findings: Finding[] = [];
  let update: OrderUpdate | null = null;
  let provider: ProviderOrder | null = null;
  let providerMoney: ProviderMoney | undefined;

  if (answer.kind === 'not_found') {
    findings.push(notFoundFinding(local));
  } else {
    provider = answer.order;
    const ctx: CheckContext = { local, provider, policy, tolerance: toleranceFor(policy, local.currency) };
    runChecks(IDENTITY_CHECKS, ctx, findings);
    const sameOrder = findings.length === 0;
    runChecks(VALUE_CHECKS, ctx, findings);
    if (sameOrder) {
      providerMoney = { category: provider.category, amount: provider.amount, fee: provider.fee };
      if (local.direction === 'payment' && provider.paidAmount !== undefined) providerMoney.paidAmount = provider.paidAmount;
      if (!isFinalCategory(local.category)) update = updateFrom(local, provider);
    }
  }
  for (const f of checkBankCode(local, policy)) findings.push(f);

  const category = update?.category ?? local.category;
  for (const f of checkStale(local, category, policy, now)) findings.push(f);
  for (const f of notificationFindings(local, update, notifications, now)) findings.push(f);

  const codes = codesOf(findings);
  const verdict: Verdict =
    findings.length > 0 ? 'mismatch' : update?.finalized ? 'resolved' : isFinalCategory(local.category) ? 'matched' : 'pending';

  return {
    verdict,
    findings,
    codes,
    reason: joinReason(reasonFor(verdict, local, provider, findings), takenFromProvider(update, local.currency)),
    update,
    nextCheckAt:
      isFinalCategory(category) && (providerMoney === undefined || isFinalCategory(providerMoney.category))
        ? null
        : new Date(now.getTime() + nextCheckDelayMs(policy, local.direction, local.checkCount)),
    ...(providerMoney && { providerMoney }),
  };
}

/** The reason and what was taken from the provider, "; " between them when both say something. */
function joinReason(reason: string, taken: string | null): string {
  if (!taken) return reason;
  return reason ? `${reason}; ${taken}` : taken;
}

/** The findings' distinct codes, sorted (most orders have none). */
function codesOf(findings: readonly Finding[]): MismatchCode[] {
  if (findings.length === 0) return [];
  return [...new Set<MismatchCode>(findings.map((f) => f.code))].sort();
}

/**
 * Nothing learnt, nothing written; try again at the first (shortest) step since the failure is likely
 * transient. What is known without the provider (a contradicted or missing notification) still counts.
 */
function errorResult(local: LocalOrder, message: string, policy: ReconPolicy, now: Date, findings: Finding[]): CheckResult {
  return {
    verdict: 'error',
    findings,
    codes: codesOf(findings),
    reason: [`provider error: ${message}`, ...findings.map((f) => f.note ?? f.code)].join('; '),
    update: null,
    nextCheckAt: new Date(now.getTime() + nextCheckDelayMs(policy, local.direction, 0)),
  };
}

/**
 * What a not-final local order becomes. A final answer moves the status and fills in what the
 * merchant did not record (fee, paidAmount, utr) from the provider; a value the merchant did record
 * is never replaced, so a disagreement stays visible to every later check until one side changes
 * or a person resolves it. A still-open answer only records a status change, so unknown strings
 * become visible locally.
 */
function updateFrom(local: LocalOrder, provider: ProviderOrder): OrderUpdate | null {
  if (isFinalCategory(provider.category)) {
    const update: OrderUpdate = { status: provider.status, category: provider.category, finalized: true };
    if (local.fee === null) update.fee = provider.fee;
    if (local.direction === 'payment' && local.paidAmount === null && provider.paidAmount !== undefined)
      update.paidAmount = provider.paidAmount;
    const utr = provider.utr?.trim();
    if (local.direction === 'payout' && utr && !local.utr?.trim()) update.utr = utr;
    return update;
  }
  if (provider.status.trim() === local.status.trim() && provider.category === local.category) return null;
  return { status: provider.status, category: provider.category, finalized: false };
}

/** The end of a reason that says which values a check filled in (alerts leave it out: it is about that check's write, not the finding). */
export const TAKEN_FROM_PROVIDER = 'taken from the provider (none recorded)';

/** Says which values the update took from the provider because the merchant had recorded none. */
function takenFromProvider(update: OrderUpdate | null, currency: LocalOrder['currency']): string | null {
  if (!update) return null;
  const taken = [
    update.fee !== undefined && `fee ${show(update.fee, currency)}`,
    update.paidAmount !== undefined && `paidAmount ${show(update.paidAmount, currency)}`,
    update.utr !== undefined && `utr ${update.utr}`,
  ].filter((t): t is string => typeof t === 'string');
  return taken.length > 0 ? `${taken.join(', ')} ${TAKEN_FROM_PROVIDER}` : null;
}

function reasonFor(verdict: Verdict, local: LocalOrder, provider: ProviderOrder | null, findings: Finding[]): string {
  const parts: string[] = [];
  // The STATUS note already names an unknown provider status; say it once.
  if (provider?.category === 'unknown' && !findings.some((f) => f.code === 'STATUS')) parts.push(describeProviderStatus(provider));
  parts.push(...findings.map((f) => f.note ?? f.code));
  if (parts.length > 0 || provider === null) return parts.join('; ');
  if (verdict === 'resolved') return `resolved: ${local.status} → ${provider.status}`;
  if (verdict === 'matched') return `matched: ${provider.status}`;
  return `pending at provider (${provider.status})`;
}
