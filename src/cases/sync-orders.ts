import type { Knex } from 'knex';
import { casesOfSubjects, orderSubject, unknownOrderSubject, type CaseFinding, type CaseSubject, type StoredCase } from '../db/cases.ts';
import type { Direction } from '../provider/types.ts';
import { orderCheckEvents, type CheckVisibility } from '../recon/cases.ts';
import type { Finding } from '../recon/types.ts';
import { observeCase, type ObserveOutcome } from './observe.ts';

/** One order as a check saw it: what the cases of the order need. */
export interface OrderCheckForCases {
  direction: Direction;
  orderId: string;
  merchantRef: string;
  transactionRef: string;
  currency: string;
  createdAt: Date;
  /** What the check could see: the provider's order, only "not found", or nothing (an error). */
  visibility: CheckVisibility;
  findings: readonly Finding[];
}

export type CaseCounts = Partial<Record<ObserveOutcome, number>>;

/**
 * Brings the cases of a batch of checked orders up to date, in the batch's transaction (so a run
 * resumed after a crash never counts a check twice): each code found opens or updates its case,
 * reopening a resolved one; each unresolved case whose code the check could see and did not find is
 * cleared. A check of an order the provider once reported as unknown to the merchant clears that
 * UNKNOWN_ORDER case: the merchant has the order on record now.
 */
export async function syncOrderCases(trx: Knex.Transaction, checks: readonly OrderCheckForCases[], at: Date): Promise<CaseCounts> {
  const counts: CaseCounts = {};
  if (checks.length === 0) return counts;
  const subjects = checks.flatMap((c) => [orderSubject(c.direction, c.orderId), unknownOrderSubject(c.direction, c.transactionRef)]);
  const existing = new Map<string, StoredCase>();
  for (const k of await casesOfSubjects(trx, subjects, { forUpdate: true })) existing.set(`${k.subject}\u0000${k.code}`, k);
  const count = (o: ObserveOutcome) => (counts[o] = (counts[o] ?? 0) + 1);

  for (const check of checks) {
    const subject = orderSubject(check.direction, check.orderId);
    const ofOrder = [...existing.values()].filter((k) => k.subject === subject);
    const unresolved = ofOrder.filter((k) => k.state !== 'resolved').map((k) => k.code);
    const byCode = findingsByCode(check.findings);
    for (const { code, event } of orderCheckEvents([...byCode.keys()], unresolved, check.visibility)) {
      const target: CaseSubject = {
        subject,
        code,
        direction: check.direction,
        orderId: check.orderId,
        merchantRef: check.merchantRef,
        transactionRef: check.transactionRef,
        currency: check.currency,
        occurredAt: check.createdAt,
      };
      const r = await observeCase(trx, target, event, at, byCode.get(code) ?? {}, existing.get(`${subject}\u0000${code}`) ?? null);
      count(r.outcome);
    }
    const unknown = existing.get(`${unknownOrderSubject(check.direction, check.transactionRef)}\u0000UNKNOWN_ORDER`);
    if (unknown && unknown.state !== 'resolved') {
      const r = await observeCase(trx, { ...unknown, occurredAt: unknown.occurredAt }, { kind: 'consistent' }, at, {}, unknown);
      count(r.outcome);
    }
  }
  return counts;
}

/** One finding per code; a code found twice (paid amount vs amount and vs recorded) keeps both sentences. */
function findingsByCode(findings: readonly Finding[]): Map<string, CaseFinding> {
  const out = new Map<string, CaseFinding>();
  for (const f of findings) {
    const prior = out.get(f.code);
    if (!prior) out.set(f.code, { local: f.local, provider: f.provider, note: f.note ?? f.code });
    else prior.note = `${prior.note}; ${f.note ?? f.code}`;
  }
  return out;
}
