import type { Knex } from '../db/knex-types.ts';
import type { Db } from '../db/connect.ts';
import { findCase, insertCase, markCaseSeen, transitionCase, type CaseFinding, type CaseSubject, type StoredCase } from '../db/cases.ts';
import { decideCase, type CaseEvent, type Transition } from '../recon/cases.ts';

export type ObserveOutcome = 'opened' | 'moved' | 'seen' | 'none' | 'refused';

export interface ObserveResult {
  outcome: ObserveOutcome;
  case: StoredCase | null;
  transition?: Transition;
  message?: string;
}

/** A decision computed from a stored case that moved meanwhile is computed again, at most this often. */
const ATTEMPTS = 3;

/**
 * Applies one event to the case (subject, code) inside the caller's transaction: the core decides
 * from the case as stored, the write is conditional on that state and version, and a lost race
 * (another process opened or moved the case first) reads the case again and decides again.
 * `known` is the case as the caller already read it (undefined: read it here).
 */
export async function observeCase(
  trx: Knex.Transaction,
  subject: CaseSubject,
  event: CaseEvent,
  at: Date,
  finding: CaseFinding = {},
  known?: StoredCase | null,
): Promise<ObserveResult> {
  let current = known === undefined ? await findCase(trx, subject.subject, subject.code, { forUpdate: true }) : known;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const decision = decideCase(current, event);
    switch (decision.kind) {
      case 'none':
        return { outcome: 'none', case: current };
      case 'refused':
        return { outcome: 'refused', case: current, message: decision.message };
      case 'open': {
        const opened = await insertCase(trx, subject, finding, decision.transition, at);
        if (opened) return { outcome: 'opened', case: opened, transition: decision.transition };
        break;
      }
      case 'move':
        if (await transitionCase(trx, current!, decision.transition, at, event.kind === 'finding' ? finding : undefined)) {
          return { outcome: 'moved', case: current, transition: decision.transition };
        }
        break;
      case 'seen':
        if (await markCaseSeen(trx, current!, finding, at)) return { outcome: 'seen', case: current };
        break;
    }
    current = await findCase(trx, subject.subject, subject.code, { forUpdate: true });
  }
  throw new Error(`case ${subject.subject} ${subject.code} kept changing while being updated; try again`);
}

/** observeCase in a transaction of its own (webhook findings, single events). */
export function observeCaseNow(
  db: Db,
  subject: CaseSubject,
  event: CaseEvent,
  at: Date,
  finding: CaseFinding = {},
): Promise<ObserveResult> {
  return db.knex.transaction((trx) => observeCase(trx, subject, event, at, finding));
}
