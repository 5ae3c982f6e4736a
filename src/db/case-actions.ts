import type { Knex } from 'knex';
import type { Transition } from '../recon/cases.ts';
import { COLUMNS, toCase, type StoredCase } from './cases.ts';
import { id, rowsOf } from './row.ts';
import { arrayLiteral, unnestRows, type UnnestColumn } from './unnest.ts';

type Conn = Knex | Knex.Transaction;

/** Cases by id, for a bulk decision; missing ids are simply absent. */
export async function getCases(db: Conn, ids: readonly string[]): Promise<StoredCase[]> {
  if (ids.length === 0) return [];
  const res = await db.raw(`SELECT ${COLUMNS} FROM cases WHERE id = ANY (?::bigint[]) ORDER BY cases.id`, [arrayLiteral(ids, (x) => x)]);
  return rowsOf(res).map(toCase);
}

/**
 * Sets (or clears, with null) who works a case, with an audit row, conditional on the version the
 * person looked at. False when the case moved meanwhile.
 */
export async function assignCase(
  trx: Knex.Transaction,
  c: Pick<StoredCase, 'id' | 'state' | 'version'>,
  assignee: string | null,
  who: { actor: string; note: string },
  at: Date,
): Promise<boolean> {
  const res = await trx.raw(
    `UPDATE cases SET assignee = ?, version = version + 1 WHERE id = ?::bigint AND state = ? AND version = ? RETURNING id`,
    [assignee, c.id, c.state, c.version],
  );
  if (rowsOf(res).length === 0) return false;
  await trx.raw(
    `INSERT INTO case_events (case_id, kind, from_state, to_state, reason, note, actor, at) VALUES (?::bigint, 'assign', ?, ?, NULL, ?, ?, ?)`,
    [c.id, c.state, c.state, who.note, who.actor, at],
  );
  return true;
}

/** A note on a case that leaves it as it is: an audit row only, written while the case is in the state shown. */
export async function commentCase(
  db: Conn,
  c: Pick<StoredCase, 'id' | 'state'>,
  who: { actor: string; note: string },
  at: Date,
): Promise<boolean> {
  const res = await db.raw(
    `INSERT INTO case_events (case_id, kind, from_state, to_state, reason, note, actor, at)
     SELECT id, 'comment', state, state, NULL, ?, ?, ? FROM cases WHERE id = ?::bigint AND state = ?
     RETURNING id`,
    [who.note, who.actor, at, c.id, c.state],
  );
  return rowsOf(res).length > 0;
}

/** One case's move in a bulk action: the version it was decided from, and the transition. */
export interface CaseMove {
  case: Pick<StoredCase, 'id' | 'state' | 'version'>;
  transition: Transition;
}

const MOVE_COLUMNS: readonly UnnestColumn<CaseMove>[] = [
  { name: 'id', type: 'bigint', value: (x) => x.case.id },
  { name: 'state', type: 'text', value: (x) => x.case.state },
  { name: 'version', type: 'integer', value: (x) => x.case.version },
  { name: 'to_state', type: 'text', value: (x) => x.transition.to },
  { name: 'resolution', type: 'text', value: (x) => (x.transition.to === 'resolved' ? x.transition.reason : null) },
  { name: 'from_state', type: 'text', value: (x) => x.transition.from },
  { name: 'reason', type: 'text', value: (x) => x.transition.reason },
  { name: 'note', type: 'text', value: (x) => x.transition.note },
  { name: 'actor', type: 'text', value: (x) => x.transition.actor },
];

/**
 * People's moves of many cases (acknowledge, resolve) in two statements: each case moves only if it
 * is still in the state and version it was decided from, and each one moved gets its own audit row.
 * Returns the ids moved; the others changed since and are left as they are.
 */
export async function transitionCases(trx: Knex.Transaction, moves: readonly CaseMove[], at: Date): Promise<Set<string>> {
  if (moves.length === 0) return new Set();
  const v = unnestRows(moves, MOVE_COLUMNS);
  const res = await trx.raw(
    `WITH moved AS (
       UPDATE cases AS c SET state = v.to_state, resolution = v.resolution, state_changed_at = ?::timestamptz, version = c.version + 1
         FROM ${v.sql}
        WHERE c.id = v.id AND c.state = v.state AND c.version = v.version
        RETURNING c.id, v.from_state, v.to_state, v.reason, v.note, v.actor
     ), audit AS (
       INSERT INTO case_events (case_id, kind, from_state, to_state, reason, note, actor, at)
       SELECT id, 'transition', from_state, to_state, reason, note, actor, ?::timestamptz FROM moved ORDER BY id
     )
     SELECT id::text AS id FROM moved`,
    [at, ...v.bindings, at],
  );
  return new Set(rowsOf(res).map((r) => id(r, 'id')));
}
