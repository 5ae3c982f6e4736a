import type { Db } from '../db/connect.ts';
import { caseHistories, caseHistory, getCase, transitionCase, type CaseEventRow, type StoredCase } from '../db/cases.ts';
import type { CaseFilter } from '../db/case-filter.ts';
import { selectCasePage, type CasePage, type PageRequest } from '../db/case-queue.ts';
import { assignCase as writeAssignee, commentCase as writeComment } from '../db/case-actions.ts';
import { listUsers } from '../db/console-users.ts';
import { can } from '../console/auth/roles.ts';
import { selectItemsOfOrder, type StoredReconItem } from '../db/items.ts';
import { findOrderById, type OrderRow } from '../db/orders.ts';
import { decideCase, type CaseEvent } from '../recon/cases.ts';
import { UsageError } from '../domain/errors.ts';

/**
 * What people do with cases: list the queue, look at one, acknowledge, resolve. The CLI and the
 * console call these; each takes the open database and returns plain data.
 */

/** A person's action the case's state does not allow, or a case that does not exist (a usage error: exit 3). */
export class CaseActionError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'CaseActionError';
  }
}

/** A case with its audit trail. */
export interface CaseWithHistory extends StoredCase {
  history: CaseEventRow[];
}

/** `cases show`: the case, its order as recorded here, every check of the order (with the provider's values), the history. */
export interface CaseDetail extends CaseWithHistory {
  order: OrderRow | null;
  checks: StoredReconItem[];
}

/** A page of the queue, each case with its history (one query for the page's histories). */
export async function listCases(db: Db, filter: CaseFilter, page: PageRequest): Promise<CasePage & { cases: CaseWithHistory[] }> {
  const found = await selectCasePage(db.knex, filter, page);
  const histories = await caseHistories(
    db.knex,
    found.cases.map((c) => c.id),
  );
  return { ...found, cases: found.cases.map((c) => ({ ...c, history: histories.get(c.id) ?? [] })) };
}

export async function showCase(db: Db, id: string): Promise<CaseDetail> {
  const c = await getCase(db.knex, id);
  if (!c) throw new CaseActionError(`no case ${JSON.stringify(id)}; see payrecon cases list`);
  const order = c.direction && c.orderId ? await findOrderById(db.knex, c.direction, c.orderId) : null;
  const checks = c.direction && c.orderId ? await selectItemsOfOrder(db.knex, c.direction, c.orderId) : [];
  return { ...c, history: await caseHistory(db.knex, c.id), order, checks };
}

export interface PersonAction {
  actor: string;
  note?: string;
  now: Date;
  /** The version the person looked at (the console sends it): refused if the case moved since. */
  expectedVersion?: number;
}

export function acknowledgeCase(db: Db, id: string, a: PersonAction): Promise<CaseWithHistory> {
  return act(db, id, a, { kind: 'acknowledge', actor: a.actor, note: a.note ?? '' });
}

export function resolveCase(db: Db, id: string, a: PersonAction & { reason: string }): Promise<CaseWithHistory> {
  return act(db, id, a, { kind: 'resolve', actor: a.actor, reason: a.reason, note: a.note ?? '' });
}

/** Decided from the case as read, written only if it is still in that state and version. */
async function act(db: Db, id: string, a: PersonAction, event: CaseEvent): Promise<CaseWithHistory> {
  const current = await getCase(db.knex, id);
  if (!current) throw new CaseActionError(`no case ${JSON.stringify(id)}; see payrecon cases list`);
  if (a.expectedVersion !== undefined && a.expectedVersion !== current.version) {
    throw new CaseActionError(`case ${id} changed since you looked at it (now ${current.state}); look again`);
  }
  const decision = decideCase(current, event);
  if (decision.kind === 'refused') throw new CaseActionError(`case ${id}: ${decision.message}`);
  if (decision.kind !== 'move') throw new CaseActionError(`case ${id}: nothing to do`);
  const moved = await db.knex.transaction((trx) => transitionCase(trx, current, decision.transition, a.now));
  if (!moved) throw new CaseActionError(`case ${id} changed meanwhile; look again (payrecon cases show ${id})`);
  const after = (await getCase(db.knex, id))!;
  return { ...after, history: await caseHistory(db.knex, id) };
}

/** Active console users who may work cases (finance, admin): whom a case may be assigned to. */
export async function assignableUsers(db: Db): Promise<string[]> {
  // A viewer cannot act on a case: given one, it would wait on someone who may not work it.
  return (await listUsers(db.knex)).filter((u) => !u.disabled && can(u.role, 'work-cases')).map((u) => u.name);
}

/** Gives a case to a console user (null: back to nobody); refused for anyone not an active console user. */
export async function assignCase(db: Db, id: string, assignee: string | null, a: PersonAction): Promise<CaseWithHistory> {
  if (assignee !== null && !(await assignableUsers(db)).includes(assignee)) {
    throw new CaseActionError(
      `--to: ${JSON.stringify(assignee)} is not an active console user who may work cases (finance or admin); see payrecon users list`,
    );
  }
  const current = await caseAsSeen(db, id, a);
  if (current.assignee === assignee) return withHistory(db, id);
  const note = assignee === null ? `unassigned (was ${current.assignee})` : `assigned to ${assignee}`;
  const who = { actor: a.actor, note: a.note ? `${note}: ${a.note}` : note };
  const moved = await db.knex.transaction((trx) => writeAssignee(trx, current, assignee, who, a.now));
  if (!moved) throw new CaseActionError(`case ${id} changed meanwhile; look again (payrecon cases show ${id})`);
  return withHistory(db, id);
}

/** A note on the case's history; its state, version and assignee stay as they are. */
export async function commentCase(db: Db, id: string, a: PersonAction): Promise<CaseWithHistory> {
  const note = (a.note ?? '').trim();
  if (!note) throw new CaseActionError('note: say something (the comment is the note)');
  if (a.actor.trim() === '') throw new CaseActionError('an actor is required (--as NAME, PAYRECON_ACTOR, or the OS user)');
  const current = await caseAsSeen(db, id, a);
  if (!(await writeComment(db.knex, current, { actor: a.actor.trim(), note }, a.now))) {
    throw new CaseActionError(`case ${id} changed meanwhile; look again (payrecon cases show ${id})`);
  }
  return withHistory(db, id);
}

async function caseAsSeen(db: Db, id: string, a: PersonAction): Promise<StoredCase> {
  const current = await getCase(db.knex, id);
  if (!current) throw new CaseActionError(`no case ${JSON.stringify(id)}; see payrecon cases list`);
  if (a.expectedVersion !== undefined && a.expectedVersion !== current.version) {
    throw new CaseActionError(`case ${id} changed since you looked at it (now ${current.state}); look again`);
  }
  return current;
}

async function withHistory(db: Db, id: string): Promise<CaseWithHistory> {
  const after = (await getCase(db.knex, id))!;
  return { ...after, history: await caseHistory(db.knex, id) };
}
