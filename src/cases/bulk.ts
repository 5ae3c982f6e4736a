import type { Db } from '../db/connect.ts';
import { getCases, transitionCases, type CaseMove } from '../db/case-actions.ts';
import { decideCase, type CaseEvent } from '../recon/cases.ts';

/** A case as the person saw it when selecting: refused if it changed since. */
export interface SelectedCase {
  id: string;
  version: number;
}

export interface BulkOutcome {
  /** The cases moved (on a dry run: that would move), each with its own audit row. */
  done: string[];
  /** The cases left as they were, and why. */
  refused: Array<{ id: string; message: string }>;
  /** Of the refused, those left because a colleague works them (acted on only when asked). */
  assignedElsewhere: Array<{ id: string; assignee: string }>;
}

export interface BulkOptions {
  /** Decide every case as the real run would, write nothing. */
  dryRun?: boolean;
  /** Who acts, as a console user name: their own cases are theirs to act on. */
  me?: string | null;
  /** Act on cases assigned to someone else too. */
  includeAssigned?: boolean;
}

/** Cases per statement: a bounded transaction, and progress kept if a later chunk fails. */
const CHUNK = 1000;

/**
 * Acknowledges or resolves many cases with one reason and note: each decided on its own (the pure
 * lifecycle), each written only if still in the version selected, one audit event per case.
 */
export function actOnCases(
  db: Db,
  selected: readonly SelectedCase[],
  event: CaseEvent,
  now: Date,
  opts: BulkOptions = {},
): Promise<BulkOutcome> {
  return actOnEach(
    db,
    selected.map((s) => ({ ...s, event })),
    now,
    undefined,
    opts,
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
  opts: BulkOptions = {},
): Promise<BulkOutcome> {
  const out: BulkOutcome = { done: [], refused: [], assignedElsewhere: [] };
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
      else if (c.assignee !== null && c.assignee !== (opts.me ?? null) && !opts.includeAssigned && c.state !== 'resolved') {
        out.refused.push({ id: s.id, message: `assigned to ${c.assignee}: left to them unless asked to include assigned cases` });
        out.assignedElsewhere.push({ id: s.id, assignee: c.assignee });
      } else {
        const d = decideCase(c, s.event);
        if (d.kind === 'move') moves.push({ case: c, transition: d.transition });
        else out.refused.push({ id: s.id, message: d.kind === 'refused' ? d.message : 'nothing to do' });
      }
    }
    // A dry run takes the same decisions and stops before the write: its counts are the real run's.
    const moved = opts.dryRun ? new Set(moves.map((m) => m.case.id)) : await db.knex.transaction((trx) => transitionCases(trx, moves, now));
    for (const m of moves) {
      if (moved.has(m.case.id)) out.done.push(m.case.id);
      else out.refused.push({ id: m.case.id, message: 'changed meanwhile' });
    }
  }
  return out;
}
