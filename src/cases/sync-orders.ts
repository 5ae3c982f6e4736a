import type { Knex } from '../db/knex-types.ts';
import {
  caseKey,
  casesOfSubjects,
  insertCases,
  markCasesSeen,
  orderSubject,
  unknownOrderSubject,
  type CaseFinding,
  type CaseSighting,
  type CaseSubject,
  type CaseToOpen,
  type StoredCase,
} from '../db/cases.ts';
import type { Direction } from '../domain/types.ts';
import { decideCase, orderCheckEvents, type CaseEvent, type CheckVisibility } from '../recon/cases.ts';
import type { Finding } from '../recon/types.ts';
import { observeCase, type ObserveOutcome } from './observe.ts';

/** One order as a check saw it: what the cases of the order need. */
export interface OrderCheckForCases {
  /** The run's account: a case the check opens belongs to it. */
  accountId?: string;
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
 *
 * The core decides each case from the cases read (and locked) for the batch. The two common
 * decisions, opening a case and seeing its finding again, are written for the whole batch at once
 * (a mismatch-heavy day opens dozens of cases per batch); moves are rare and written one by one.
 * A case another process opened or moved meanwhile is read again and decided again, as observeCase does.
 */
export async function syncOrderCases(trx: Knex.Transaction, checks: readonly OrderCheckForCases[], at: Date): Promise<CaseCounts> {
  const counts: CaseCounts = {};
  if (checks.length === 0) return counts;
  // The batch writes below count on one check per order (a case seen twice would be counted twice, updated once).
  if (new Set(checks.map((c) => orderSubject(c.direction, c.orderId))).size !== checks.length) {
    throw new TypeError('syncOrderCases: an order is checked twice in one batch');
  }
  const subjects = checks.flatMap((c) => [orderSubject(c.direction, c.orderId), unknownOrderSubject(c.direction, c.transactionRef)]);
  const existing = new Map<string, StoredCase>();
  const bySubject = new Map<string, StoredCase[]>();
  for (const k of await casesOfSubjects(trx, subjects, { forUpdate: true })) {
    existing.set(caseKey(k.subject, k.code), k);
    const ofSubject = bySubject.get(k.subject);
    if (ofSubject) ofSubject.push(k);
    else bySubject.set(k.subject, [k]);
  }
  const count = (o: ObserveOutcome) => (counts[o] = (counts[o] ?? 0) + 1);

  const toOpen: Array<CaseToOpen & { event: CaseEvent }> = [];
  const toSee: Array<CaseSighting & { target: CaseSubject }> = [];
  // known: the case as read for the batch; undefined after a lost race, so observeCase reads it again.
  const oneByOne: Array<{ target: CaseSubject; event: CaseEvent; finding: CaseFinding; known: StoredCase | null | undefined }> = [];
  for (const check of checks) {
    const subject = orderSubject(check.direction, check.orderId);
    const ofSubject = bySubject.get(subject);
    // Nothing found and no case of the order (most orders of a run): no event; only its UNKNOWN_ORDER case below.
    const quiet = check.findings.length === 0 && ofSubject === undefined;
    const byCode = quiet ? NO_FINDINGS : findingsByCode(check.findings);
    const events = quiet
      ? []
      : orderCheckEvents(
          [...byCode.keys()],
          (ofSubject ?? []).filter((k) => k.state !== 'resolved').map((k) => k.code),
          check.visibility,
        );
    for (const { code, event } of events) {
      const target: CaseSubject = {
        subject,
        code,
        ...(check.accountId !== undefined ? { accountId: check.accountId } : {}),
        direction: check.direction,
        orderId: check.orderId,
        merchantRef: check.merchantRef,
        transactionRef: check.transactionRef,
        currency: check.currency,
        occurredAt: check.createdAt,
      };
      const finding = byCode.get(code) ?? {};
      const known = existing.get(caseKey(subject, code)) ?? null;
      const decision = decideCase(known, event);
      if (decision.kind === 'none') count('none');
      else if (decision.kind === 'open') toOpen.push({ subject: target, finding, transition: decision.transition, event });
      else if (decision.kind === 'seen') toSee.push({ case: known!, finding, target });
      else oneByOne.push({ target, event, finding, known });
    }
    const unknown = existing.get(caseKey(unknownOrderSubject(check.direction, check.transactionRef), 'UNKNOWN_ORDER'));
    if (unknown && unknown.state !== 'resolved') {
      oneByOne.push({ target: { ...unknown, occurredAt: unknown.occurredAt }, event: { kind: 'consistent' }, finding: {}, known: unknown });
    }
  }

  const opened = new Set((await insertCases(trx, toOpen, at)).map((k) => caseKey(k.subject, k.code)));
  const seen = await markCasesSeen(trx, toSee, at);
  for (const o of toOpen) {
    if (opened.has(caseKey(o.subject.subject, o.subject.code))) count('opened');
    else oneByOne.push({ target: o.subject, event: o.event, finding: o.finding, known: undefined });
  }
  for (const s of toSee) {
    if (seen.has(s.case.id)) count('seen');
    else oneByOne.push({ target: s.target, event: { kind: 'finding' }, finding: s.finding, known: undefined });
  }
  for (const o of oneByOne) count((await observeCase(trx, o.target, o.event, at, o.finding, o.known)).outcome);
  return counts;
}

const NO_FINDINGS: ReadonlyMap<string, CaseFinding> = new Map();

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
