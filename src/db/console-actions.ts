import type { Knex } from 'knex';
import { date, object, rowsOf, text, textOrNull } from './row.ts';

type Conn = Knex | Knex.Transaction;

export interface ConsoleAction {
  at: Date;
  actor: string;
  action: string;
  target?: string | null;
  address?: string | null;
  detail?: Record<string, unknown>;
}

/** Appends one audit row (the table refuses updates and deletes). */
export async function recordAction(db: Conn, a: ConsoleAction): Promise<void> {
  await db.raw(`INSERT INTO console_actions (at, actor, action, target, address, detail) VALUES (?, ?, ?, ?, ?, ?::jsonb)`, [
    a.at,
    a.actor,
    a.action,
    a.target ?? null,
    a.address ?? null,
    JSON.stringify(a.detail ?? {}),
  ]);
}

export async function recentActions(db: Conn, limit = 100): Promise<Array<Required<ConsoleAction> & { id: string }>> {
  const res = await db.raw(
    `SELECT id::text AS id, at, actor, action, target, address, detail FROM console_actions ORDER BY at DESC, console_actions.id DESC LIMIT ?`,
    [limit],
  );
  return rowsOf(res).map((r) => ({
    id: text(r, 'id'),
    at: date(r, 'at'),
    actor: text(r, 'actor'),
    action: text(r, 'action'),
    target: textOrNull(r, 'target'),
    address: textOrNull(r, 'address'),
    detail: object(r, 'detail'),
  }));
}
