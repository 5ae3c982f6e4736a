import type { Knex } from '../db/knex-types.ts';
import { approveMovement, DEFAULT_ACCOUNT, driftCasesExplainedBy, type ApproveOutcome } from '../db/movements.ts';
import { getCase, transitionCase } from '../db/cases.ts';
import { decideCase } from '../recon/cases.ts';

export interface ApproveResult {
  outcome: ApproveOutcome;
  /** BALANCE_DRIFT cases this movement explains exactly, resolved with a note naming it. */
  resolvedCases: string[];
}

/**
 * Approves a movement (maker-checker) and, in the same transaction, resolves the open BALANCE_DRIFT
 * cases it explains: same currency, a window its moment (widened by the lag) overlaps, a drift equal to
 * its signed amount. The case's history names the movement and its approver, which links them.
 */
export async function approveAndLink(
  db: Knex,
  reference: string,
  by: string,
  at: Date,
  lagMs: number,
  account: string = DEFAULT_ACCOUNT,
): Promise<ApproveResult> {
  return db.transaction(async (trx: Knex.Transaction) => {
    // A reference is unique per account: the account names which movement, and only its drift cases are resolved.
    const outcome = await approveMovement(trx, reference, by, at, account);
    if (outcome.kind !== 'approved') return { outcome, resolvedCases: [] };
    const m = outcome.movement;
    const resolvedCases: string[] = [];
    for (const id of await driftCasesExplainedBy(trx, m, lagMs)) {
      const note = `explained by ${m.kind.replace('_', '-')} ${m.reference} (${m.direction} ${m.currency} ${m.amount}), recorded by ${m.recordedBy}, approved by ${by}`;
      const current = await getCase(trx, id, { forUpdate: true });
      const decision = current && decideCase(current, { kind: 'resolve', actor: by, reason: 'adjusted', note });
      if (current && decision?.kind === 'move' && (await transitionCase(trx, current, decision.transition, at))) resolvedCases.push(id);
    }
    return { outcome, resolvedCases };
  });
}
