import type { Knex } from 'knex';
import { date, dateOrNull, object, rowsOf, text, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** An uploaded queue export's plan, waiting for its user's confirm (sql/033_case_imports.sql). */
export interface StoredImport<P> {
  token: string;
  userName: string;
  fileName: string;
  createdAt: Date;
  appliedAt: Date | null;
  plan: P;
}

/** Stores a preview's plan; previews older than `forgetBefore` (confirmed or not) go. */
export async function saveImport<P>(db: Conn, x: Omit<StoredImport<P>, 'appliedAt'>, forgetBefore: Date): Promise<void> {
  await db.raw(`DELETE FROM case_imports WHERE created_at < ?`, [forgetBefore]);
  await db.raw(`INSERT INTO case_imports (token, user_name, file_name, created_at, plan) VALUES (?, ?, ?, ?, ?::jsonb)`, [
    x.token,
    x.userName,
    x.fileName,
    x.createdAt,
    JSON.stringify(x.plan),
  ]);
}

export async function findImport<P>(db: Conn, token: string): Promise<StoredImport<P> | null> {
  const res = await db.raw(`SELECT token, user_name, file_name, created_at, applied_at, plan FROM case_imports WHERE token = ?`, [token]);
  const r = rowsOf(res)[0];
  return r ? toImport<P>(r) : null;
}

function toImport<P>(r: Row): StoredImport<P> {
  return {
    token: text(r, 'token'),
    userName: text(r, 'user_name'),
    fileName: text(r, 'file_name'),
    createdAt: date(r, 'created_at'),
    appliedAt: dateOrNull(r, 'applied_at'),
    // The plan is the JSON saveImport wrote from the caller's own type P; only the caller knows P's shape.
    plan: object(r, 'plan') as P,
  };
}

/** Marks a preview applied, once: false when it was already (a second confirm) or is not this user's. */
export async function takeImport(db: Conn, token: string, userName: string, at: Date): Promise<boolean> {
  const res = await db.raw(
    `UPDATE case_imports SET applied_at = ? WHERE token = ? AND user_name = ? AND applied_at IS NULL RETURNING token`,
    [at, token, userName],
  );
  return rowsOf(res).length > 0;
}
