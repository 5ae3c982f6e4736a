import type { Currency } from '../money/decimal.ts';
import { groupedAmount } from '../recon/format.ts';
import type { RateFlag } from '../recon/rates.ts';
import { TAKEN_FROM_PROVIDER } from '../recon/compare.ts';
import { MISMATCH_CODES, type MismatchCode, type Verdict } from '../domain/verdicts.ts';
import type { AlertInput } from './raise-alert.ts';

/**
 * The alerts the jobs raise, as pure functions of their findings. Payloads hold only what
 * describes the finding (never run ids or times), so an unchanged finding has an unchanged
 * digest and raiseAlert suppresses the repeat.
 */

/** Orders listed in an alert; the rest are in the report. */
export const SAMPLE_ORDERS = 5;

export interface CheckedOrderSummary {
  merchantRef: string;
  transactionRef: string;
  verdict: Verdict;
  codes: readonly MismatchCode[];
  reason: string;
  /** The order's cases behind the codes, when known: the alert resolves when they all are. */
  cases?: ReadonlyArray<{ code: string; id: string }>;
}

export interface ReconcileRunSummary {
  job?: string;
  runId?: string | null;
  /** The run's checked orders (at least every one carrying a code). */
  items: Iterable<CheckedOrderSummary>;
}

interface OrderSample {
  merchantRef: string;
  transactionRef: string;
  codes: string[];
  reason: string;
}

/** Up to two alerts: orders in mismatch (codes other than STALE) and orders past their age limit (STALE). */
export function alertsForReconcileRun(run: ReconcileRunSummary): AlertInput[] {
  const job = run.job ?? 'reconcile';
  const mismatched: CheckedOrderSummary[] = [];
  const stale: CheckedOrderSummary[] = [];
  for (const item of run.items) {
    if (item.codes.includes('STALE')) stale.push(item);
    if (item.verdict === 'mismatch' && item.codes.some((c) => c !== 'STALE')) mismatched.push(item);
  }
  const out: AlertInput[] = [];
  if (mismatched.length) {
    const counts = countCodes(mismatched, (c) => c !== 'STALE');
    out.push({
      kind: 'mismatches',
      fingerprintParts: [job],
      title: `${job}: ${plural(mismatched.length, 'order', 'orders')} in mismatch (${describeCounts(counts)})`,
      payload: {
        summary: `${plural(mismatched.length, 'order', 'orders')} disagree with the provider`,
        total: mismatched.length,
        counts,
        orders: sample(mismatched),
      },
      runId: run.runId ?? null,
      ...caseIdsOf(mismatched, (c) => c !== 'STALE'),
    });
  }
  if (stale.length) {
    out.push({
      kind: 'stale',
      fingerprintParts: [job],
      title: `${job}: ${plural(stale.length, 'order', 'orders')} still not final past the age limit`,
      payload: {
        summary: `${plural(stale.length, 'order', 'orders')} STALE`,
        total: stale.length,
        counts: { STALE: stale.length },
        orders: sample(stale),
      },
      runId: run.runId ?? null,
      ...caseIdsOf(stale, (c) => c === 'STALE'),
    });
  }
  return out;
}

export interface DriftFinding {
  currency: Currency;
  /** closing − expected closing, in the currency's units. */
  drift: string;
  tolerance?: string;
  opening?: string;
  expectedClosing?: string;
  closing?: string;
}

/** The cases behind an alert's orders, when the items carry them; none: the alert has no case cause. */
function caseIdsOf(items: readonly CheckedOrderSummary[], keep: (code: string) => boolean): { caseIds?: string[] } {
  if (!items.some((i) => i.cases)) return {};
  return { caseIds: [...new Set(items.flatMap((i) => (i.cases ?? []).filter((c) => keep(c.code)).map((c) => c.id)))] };
}

/** One currency's balance roll-forward beyond tolerance; with its case, the alert resolves when the case does. */
export function alertForDrift(d: DriftFinding, runId: string | null = null, caseId?: string): AlertInput {
  const shown = groupedAmount(d.drift, d.currency);
  return {
    kind: 'balance_drift',
    fingerprintParts: [d.currency],
    title: `${d.currency} balance drift ${shown}`,
    payload: {
      summary: `The ${d.currency} balance moved ${shown} differently from what the finalized orders explain`,
      counts: { BALANCE_DRIFT: 1 },
      ...d,
    },
    runId,
    ...(caseId ? { caseIds: [caseId] } : {}),
  };
}

/** A currency's USDT rate flagged stale or jumping; null when the check raised no flag. */
export function alertForRateFlags(
  currency: Currency,
  check: { flags: readonly RateFlag[]; notes: readonly string[] },
  runId: string | null = null,
): AlertInput | null {
  if (check.flags.length === 0) return null;
  const flags = [...check.flags].sort();
  return {
    kind: 'rate_flags',
    fingerprintParts: [currency],
    title: `${currency} USDT rate ${flags.join(', ')}`,
    payload: { summary: check.notes.join('; ') || flags.join(', '), currency, flags, notes: [...check.notes] },
    runId,
  };
}

export type FailedRunStatus = 'failed' | 'credentials' | 'provider_unavailable' | 'interrupted';

const FAILURE_TITLES: Record<FailedRunStatus, string> = {
  credentials: 'the provider refused the credentials',
  provider_unavailable: 'the provider is unavailable',
  interrupted: 'the run was interrupted',
  failed: 'the run failed',
};

/** A job that could not complete; `message` must already be free of secrets (raiseAlert scrubs again if given them). */
export function alertForFailedRun(job: string, status: FailedRunStatus, message: string, runId: string | null = null): AlertInput {
  return {
    kind: 'run_failed',
    fingerprintParts: [job, status],
    title: `${job}: ${FAILURE_TITLES[status]}`,
    payload: { summary: message, job, status },
    runId,
  };
}

/**
 * A run that holds its job's lock and has made no progress past RUN_STALL_AFTER_SECONDS. Its payload
 * names the run and its last progress, never how long it has been silent: a later run finding the
 * same stall raises the same finding (suppressed), a new stall is news.
 */
export function alertForStalledRun(
  job: string,
  stalled: { runId: string | null; pid: number | null; host: string | null; since: Date },
): AlertInput {
  const where = stalled.pid !== null ? ` (pid ${stalled.pid}${stalled.host ? ` on ${stalled.host}` : ''})` : '';
  const run = stalled.runId ? `run ${stalled.runId}` : 'a run';
  const since = stalled.since.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    kind: 'run_stalled',
    fingerprintParts: [job],
    title: `${job}: ${run}${where} holds the lock with no progress since ${since}`,
    payload: {
      summary: `${job} ${run}${where} holds the job's lock and has made no progress since ${since}; later runs do nothing until it moves again or is stopped`,
      job,
      stalledRunId: stalled.runId,
      pid: stalled.pid,
      host: stalled.host,
      lastProgressAt: since,
    },
    runId: stalled.runId,
  };
}

function countCodes(items: readonly CheckedOrderSummary[], keep: (c: MismatchCode) => boolean): Record<string, number> {
  const counts: Record<string, number> = {};
  // MISMATCH_CODES order, so the payload (and its digest) does not depend on the order items came in.
  for (const code of MISMATCH_CODES) {
    if (!keep(code)) continue;
    const n = items.filter((i) => i.codes.includes(code)).length;
    if (n) counts[code] = n;
  }
  return counts;
}

/** The first orders by merchantRef, then transactionRef: the same orders every run while the finding stands. */
function sample(items: readonly CheckedOrderSummary[]): OrderSample[] {
  return [...items]
    .sort((a, b) => cmp(a.merchantRef, b.merchantRef) || cmp(a.transactionRef, b.transactionRef))
    .slice(0, SAMPLE_ORDERS)
    .map((i) => ({ merchantRef: i.merchantRef, transactionRef: i.transactionRef, codes: [...i.codes], reason: findingReason(i.reason) }));
}

/**
 * The reason without what the first check filled in for the merchant ("fee 5.00 taken from the
 * provider (none recorded)"): the next check of the same finding says nothing of it, and the alert
 * would otherwise read as news and be sent again.
 */
const findingReason = (reason: string) =>
  reason
    .split('; ')
    .filter((part) => !part.endsWith(TAKEN_FROM_PROVIDER))
    .join('; ');

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const describeCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
