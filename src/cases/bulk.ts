import type { Db } from '../db/connect.ts';
import { getCases, transitionCases, type CaseMove } from '../db/case-actions.ts';
import { decideCase, type CaseEvent } from '../recon/cases.ts';

/** A case as the person saw it when selecting: refused if it changed since. */
export interface SelectedCase {
  id: string;
  version: number;
}

export interface BulkOutcome {
  /** The cases moved, each with its own audit row. */
  done: string[];
  /** The cases left as they were, and why. */
  refused: Array<{ id: string; message: string }>;
}

/** Cases per statement: a bounded transaction, and progress kept if a later chunk fails. */
const CHUNK = 1000;

/**
 * Acknowledges or resolves many cases with one reason and note: each decided on its own (the pure
 * lifecycle), each written only if still in the version selected, one audit event per case.
 */
export function actOnCases(db: Db, selected: readonly SelectedCase[], event: CaseEvent, now: Date): Promise<BulkOutcome> {
  return actOnEach(
    db,
    selected.map((s) => ({ ...s, event })),
    now,
  );
}

/**
 * As actOnCases, each case with its own event (the spreadsheet round trip: a reason and note per
 * row). `changed` says what the version was taken from, for the refusal.
 */
export async function actOnEach(
  db: Db,
  selected: ReadonlyArray<SelectedCase & { event: CaseEvent }>,
  now: Date,
  changed = 'it was selected',
): Promise<BulkOutcome> {
  const out: BulkOutcome = { done: [], refused: [] };
  // A case named twice (a form posted with one case repeated) is one case: acted on once, counted once.
  const seen = new Set<string>();
  const distinct = selected.filter((s) => !seen.has(s.id) && seen.add(s.id));
  for (let i = 0; i < distinct.length; i += CHUNK) {
    const chunk = distinct.slice(i, i + CHUNK);
    const stored = new Map(
      (
        await getCases(
          db.knex,
          chunk.map((s) => s.id),
        )
      ).map((c) => [c.id, c]),
    );
    const moves: CaseMove[] = [];
    for (const s of chunk) {
      const c = stored.get(s.id);
      if (!c) out.refused.push({ id: s.id, message: 'no such case' });
      else if (c.version !== s.version) out.refused.push({ id: s.id, message: `changed since ${changed} (now ${c.state})` });
      else {
        const d = decideCase(c, s.event);
        if (d.kind === 'move') moves.push({ case: c, transition: d.transition });
        else out.refused.push({ id: s.id, message: d.kind === 'refused' ? d.message : 'nothing to do' });
      }
    }
    const moved = await db.knex.transaction((trx) => transitionCases(trx, moves, now));
    for (const m of moves) {
      if (moved.has(m.case.id)) out.done.push(m.case.id);
      else out.refused.push({ id: m.case.id, message: 'changed meanwhile' });
    }
  }
  return out;
}
