import type { Db } from '../db/connect.ts';
import { caseHistory, getCase, selectCases, transitionCase, type CaseEventRow, type CaseFilter, type StoredCase } from '../db/cases.ts';
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

export async function listCases(db: Db, filter: CaseFilter): Promise<CaseWithHistory[]> {
  const cases = await selectCases(db.knex, filter);
  return Promise.all(cases.map(async (c) => ({ ...c, history: await caseHistory(db.knex, c.id) })));
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
