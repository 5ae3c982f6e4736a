/**
 * The life of a case: one record per problem (an order and a code; BALANCE_DRIFT per currency and
 * window) that people acknowledge and resolve, and that checks open, clear and reopen. Pure: the
 * caller passes the case as stored, the event and its time, and writes the decision back
 * conditionally on the state the decision was computed from.
 *
 * Choices made for the finance team:
 * - States are open → acknowledged → resolved. Acknowledging says "someone is on it"; it stops
 *   alert repeats but keeps the case in every open list.
 * - A person resolves with a reason and a note; "cleared-by-recheck" is payrecon's own reason, when a
 *   later check no longer finds the problem. A person cannot claim it.
 * - A resolved case whose finding comes back is reopened (recorded, actor payrecon), except a case
 *   written off: finance decided to live with it, so it stays resolved while the finding persists.
 * - A check that could not see a code (the provider did not answer, or did not know the order) does
 *   not clear it: absence of evidence is not a consistent recheck.
 */

export const CASE_STATES = ['open', 'acknowledged', 'resolved'] as const;
export type CaseState = (typeof CASE_STATES)[number];

/** Reasons a person gives when resolving. */
export const RESOLUTION_REASONS = ['provider-corrected', 'adjusted', 'written-off', 'duplicate', 'false-positive', 'other'] as const;
export type ResolutionReason = (typeof RESOLUTION_REASONS)[number];

/** payrecon's own reasons: a consistent recheck clears, a recurring finding reopens. */
export const CLEARED_BY_RECHECK = 'cleared-by-recheck';
export const RECURRED = 'recurred';
export type CaseReason = ResolutionReason | typeof CLEARED_BY_RECHECK | typeof RECURRED;
/** Every reason a resolved case can carry, people's and payrecon's. */
export const CASE_REASONS: readonly CaseReason[] = [...RESOLUTION_REASONS, CLEARED_BY_RECHECK, RECURRED];

/** The actor of automatic transitions. */
export const SYSTEM_ACTOR = 'payrecon';

/** What the lifecycle needs of a stored case. */
export interface CaseView {
  state: CaseState;
  /** Set while resolved: why. */
  resolution: CaseReason | null;
}

export type CaseEvent =
  | { kind: 'finding' }
  | { kind: 'consistent' }
  | { kind: 'acknowledge'; actor: string; note: string }
  | { kind: 'resolve'; actor: string; reason: string; note: string };

export interface Transition {
  from: CaseState | null;
  to: CaseState;
  reason: CaseReason | null;
  note: string;
  actor: string;
}

/**
 * What to do with a case on an event:
 * - open: create the case (no case yet, a finding); the transition is its first audit row;
 * - move: a transition of an existing case;
 * - seen: the finding persists on a case that stays as it is (its last-seen time moves);
 * - none: nothing to record;
 * - refused: a person asked for something the case's state does not allow; `message` says why.
 */
export type CaseDecision =
  | { kind: 'open'; transition: Transition }
  | { kind: 'move'; transition: Transition }
  | { kind: 'seen' }
  | { kind: 'none' }
  | { kind: 'refused'; message: string };

export function isResolutionReason(value: string): value is ResolutionReason {
  return (RESOLUTION_REASONS as readonly string[]).includes(value);
}

export function decideCase(current: CaseView | null, event: CaseEvent): CaseDecision {
  if (current === null) {
    if (event.kind === 'finding') return { kind: 'open', transition: auto(null, 'open', null, 'finding opened') };
    if (event.kind === 'consistent') return { kind: 'none' };
    return { kind: 'refused', message: 'no such case' };
  }
  if ((event.kind === 'acknowledge' || event.kind === 'resolve') && event.actor.trim() === '') {
    return { kind: 'refused', message: 'an actor is required (--as NAME, PAYRECON_ACTOR, or the OS user)' };
  }
  switch (event.kind) {
    case 'finding':
      if (current.state !== 'resolved') return { kind: 'seen' };
      if (current.resolution === 'written-off') return { kind: 'seen' };
      return {
        kind: 'move',
        transition: auto('resolved', 'open', RECURRED, `finding came back after ${current.resolution ?? 'resolution'}`),
      };
    case 'consistent':
      if (current.state === 'resolved') return { kind: 'none' };
      return { kind: 'move', transition: auto(current.state, 'resolved', CLEARED_BY_RECHECK, 'a later check found it consistent') };
    case 'acknowledge':
      if (current.state === 'acknowledged') return { kind: 'refused', message: 'case is already acknowledged' };
      if (current.state === 'resolved') return { kind: 'refused', message: 'case is resolved; nothing to acknowledge' };
      return {
        kind: 'move',
        transition: { from: 'open', to: 'acknowledged', reason: null, note: event.note, actor: event.actor.trim() },
      };
    case 'resolve': {
      if (!isResolutionReason(event.reason)) {
        return { kind: 'refused', message: `reason must be one of ${RESOLUTION_REASONS.join(', ')} (got ${JSON.stringify(event.reason)})` };
      }
      if (event.note.trim() === '') return { kind: 'refused', message: 'a note is required: say what was done' };
      if (current.state === 'resolved')
        return { kind: 'refused', message: `case is already resolved (${current.resolution ?? 'no reason'})` };
      return {
        kind: 'move',
        transition: { from: current.state, to: 'resolved', reason: event.reason, note: event.note, actor: event.actor.trim() },
      };
    }
  }
}

function auto(from: CaseState | null, to: CaseState, reason: CaseReason | null, note: string): Transition {
  return { from, to, reason, note, actor: SYSTEM_ACTOR };
}

/** What a check of one order looked at; a code it could not see is neither found nor cleared. */
export type CheckVisibility = 'found' | 'not_found' | 'error';

/** Codes decided from the local order alone, or from "the provider does not know it". */
const WITHOUT_PROVIDER_ORDER: readonly string[] = ['NOT_FOUND', 'BANK_CODE', 'STALE', 'WEBHOOK_CONFLICT', 'WEBHOOK_MISSING'];

/**
 * Whether a check with this visibility would have reported `code` had the problem still been
 * there: only then does its absence clear the case.
 */
export function checkCouldSee(code: string, visibility: CheckVisibility): boolean {
  if (visibility === 'error') return false;
  if (visibility === 'found') return code !== 'UNKNOWN_ORDER' && code !== 'BALANCE_DRIFT';
  return WITHOUT_PROVIDER_ORDER.includes(code);
}

/**
 * The events one order check produces for the order's cases: a finding per code found, a
 * consistent recheck per case still unresolved whose code the check could see and did not find.
 */
export function orderCheckEvents(
  found: readonly string[],
  unresolvedCodes: readonly string[],
  visibility: CheckVisibility,
): Array<{ code: string; event: CaseEvent }> {
  const out: Array<{ code: string; event: CaseEvent }> = [];
  for (const code of [...new Set(found)].sort()) out.push({ code, event: { kind: 'finding' } });
  for (const code of [...new Set(unresolvedCodes)].sort()) {
    if (!found.includes(code) && checkCouldSee(code, visibility)) out.push({ code, event: { kind: 'consistent' } });
  }
  return out;
}

/** Open-case age buckets for summaries (upper bounds exclusive). */
export const AGE_BUCKETS = [
  { label: '<1d', maxMs: 86_400_000 },
  { label: '1-3d', maxMs: 3 * 86_400_000 },
  { label: '3-7d', maxMs: 7 * 86_400_000 },
  { label: '>7d', maxMs: Infinity },
] as const;

export function ageBucket(openedAt: Date, now: Date): (typeof AGE_BUCKETS)[number]['label'] {
  const age = now.getTime() - openedAt.getTime();
  return AGE_BUCKETS.find((b) => age < b.maxMs)!.label;
}

/** "--older-than 3d": a duration in minutes, hours or days; the error names the shape expected. */
export function parseAge(text: string): number {
  const m = /^(\d{1,5})([mhd])$/.exec(text.trim());
  if (!m) throw new Error(`expected a duration like 30m, 12h or 3d (got ${JSON.stringify(text)})`);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}
