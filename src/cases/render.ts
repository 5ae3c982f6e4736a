import { renderTable } from '../cli-ui/table.ts';
import type { CaseEventRow, StoredCase } from '../db/cases.ts';
import type { StoredReconItem } from '../db/items.ts';
import { describeDuration } from '../recon/timing.ts';
import type { CaseDetail, CaseWithHistory } from './work.ts';

/** `cases ... --json`: snake_case keys, times as ISO text, amounts as the exact decimal text stored. */
export function caseJson(c: CaseWithHistory, withAccount = false): Record<string, unknown> {
  return {
    id: c.id,
    ...(withAccount ? { account_id: c.accountId } : {}),
    state: c.state,
    resolution: c.resolution,
    code: c.code,
    merchant_ref: c.merchantRef,
    transaction_ref: c.transactionRef,
    direction: c.direction,
    order_id: c.orderId,
    currency: c.currency,
    window_start: iso(c.windowStart),
    window_end: iso(c.windowEnd),
    occurred_at: iso(c.occurredAt),
    created_at: iso(c.createdAt),
    opened_at: iso(c.openedAt),
    state_changed_at: iso(c.stateChangedAt),
    last_seen_at: iso(c.lastSeenAt),
    seen_count: c.seenCount,
    version: c.version,
    assignee: c.assignee,
    difference: c.difference,
    at_risk: c.atRisk,
    at_risk_usdt: c.atRiskUsdt,
    finding: c.finding,
    history: c.history.map(eventJson),
  };
}

export function caseDetailJson(d: CaseDetail): Record<string, unknown> {
  return {
    ...caseJson(d),
    order: d.order && {
      direction: d.order.direction,
      id: d.order.id,
      merchant_ref: d.order.merchantRef,
      transaction_ref: d.order.transactionRef,
      currency: d.order.currency,
      method: d.order.method,
      amount: d.order.amount,
      paid_amount: d.order.paidAmount,
      fee: d.order.fee,
      utr: d.order.utr,
      bank_code: d.order.bankCode,
      status: d.order.status,
      status_category: d.order.statusCategory,
      created_at: iso(d.order.createdAt),
      finalized_at: iso(d.order.finalizedAt),
    },
    checks: d.checks.map((i) => ({
      run_id: i.runId,
      checked_at: iso(i.checkedAt),
      verdict: i.verdict,
      codes: i.codes,
      reason: i.reason,
      local: { status: i.localStatus, amount: i.localAmount, paid_amount: i.localPaidAmount, fee: i.localFee, utr: i.localUtr },
      provider: {
        status: i.providerStatus,
        amount: i.providerAmount,
        paid_amount: i.providerPaidAmount,
        fee: i.providerFee,
        utr: i.providerUtr,
      },
    })),
  };
}

function eventJson(e: CaseEventRow): Record<string, unknown> {
  return { kind: e.kind, from: e.fromState, to: e.toState, reason: e.reason, note: e.note, actor: e.actor, at: iso(e.at) };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What the case is about, in one cell: the order's merchantRef, or the currency and window of a drift. */
export function caseAbout(c: StoredCase): string {
  if (c.code === 'BALANCE_DRIFT' && c.windowStart && c.windowEnd) {
    return `${c.currency} ${c.windowStart.toISOString().slice(0, 16)}Z → ${c.windowEnd.toISOString().slice(0, 16)}Z`;
  }
  return c.merchantRef ?? c.transactionRef ?? c.subject;
}

/** How a case's state reads to people: a written-off case is not "resolved" in the usual sense. */
export function stateLabel(c: Pick<StoredCase, 'state' | 'resolution'>): string {
  if (c.state !== 'resolved') return c.state;
  return c.resolution === 'written-off' ? 'written off' : `resolved (${c.resolution})`;
}

/** The queue as a table; `withAccount` (several accounts configured) adds the account after the case number. */
export function renderCaseList(cases: readonly CaseWithHistory[], now: Date, withAccount = false): string {
  if (cases.length === 0) return 'no cases match\n';
  const rows = cases.map((c) => [
    `#${c.id}`,
    ...(withAccount ? [c.accountId] : []),
    stateLabel(c),
    c.code,
    c.currency ?? '',
    caseAbout(c),
    describeDuration(now.getTime() - c.openedAt.getTime()),
    c.history.at(-1)?.actor ?? '',
    clip(String(c.finding.note ?? ''), 70),
  ]);
  const header = ['case', ...(withAccount ? ['account'] : []), 'state', 'code', 'cur', 'about', 'age', 'last by', 'finding'];
  return `${renderTable(header, rows)}${cases.length} case${cases.length === 1 ? '' : 's'}\n`;
}

export function renderCaseDetail(d: CaseDetail, now: Date): string {
  const lines = [
    `case #${d.id}  ${d.code}  ${stateLabel(d)}`,
    `about      ${caseAbout(d)}${d.transactionRef ? `  (transactionRef ${d.transactionRef})` : ''}`,
    `opened     ${d.openedAt.toISOString()} (${describeDuration(now.getTime() - d.openedAt.getTime())} ago)${d.createdAt.getTime() !== d.openedAt.getTime() ? `, first ${d.createdAt.toISOString()}` : ''}`,
    `last seen  ${d.lastSeenAt.toISOString()} (${d.seenCount} check${d.seenCount === 1 ? '' : 's'} found it)`,
    `finding    ${String(d.finding.note ?? '')}`,
    `           local ${show(d.finding.local)}  provider ${show(d.finding.provider)}`,
  ];
  if (d.order) {
    const o = d.order;
    lines.push(
      '',
      `order (${o.direction} #${o.id}, as recorded here)`,
      `  ${o.currency} ${o.method}  amount ${o.amount}${o.paidAmount !== null ? `  paid ${o.paidAmount}` : ''}  fee ${show(o.fee)}${o.utr ? `  utr ${o.utr}` : ''}  status ${o.status} (${o.statusCategory})`,
    );
  }
  if (d.checks.length > 0) {
    lines.push('', 'checks of the order (local | provider)');
    lines.push(renderTable(['checked at', 'verdict', 'codes', 'status', 'amount', 'paid', 'fee'], d.checks.map(checkRow)).trimEnd());
  }
  lines.push('', 'history');
  lines.push(
    renderTable(
      ['at', 'from', 'to', 'reason', 'actor', 'note'],
      d.history.map((e) => [e.at.toISOString(), e.fromState ?? '-', e.toState, e.reason ?? '', e.actor, e.note]),
    ).trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

function checkRow(i: StoredReconItem): string[] {
  const pair = (a: string | null, b: string | null) => `${show(a)} | ${show(b)}`;
  return [
    i.checkedAt.toISOString(),
    i.verdict,
    i.codes.join(',') || '-',
    pair(i.localStatus, i.providerStatus),
    pair(i.localAmount, i.providerAmount),
    pair(i.localPaidAmount, i.providerPaidAmount),
    pair(i.localFee, i.providerFee),
  ];
}

const show = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : String(v));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
