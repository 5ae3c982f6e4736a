import type { Knex } from 'knex';
import { ROLES, type Role } from '../domain/roles.ts';
import { bool, date, dateOrNull, oneOf, rowsOf, text, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** The roles are the domain's words (src/domain/roles.ts); the row mappers here check them. */
export { ROLES, type Role };

export interface ConsoleUser {
  id: string;
  name: string;
  role: Role;
  disabled: boolean;
  createdAt: Date;
}

/** With the stored hash: only the login check reads it. */
export interface ConsoleUserWithHash extends ConsoleUser {
  passwordHash: string;
}

const COLUMNS = `id::text AS id, name, role, password_hash, disabled_at IS NOT NULL AS disabled, created_at`;

const toListed = (r: Row): ConsoleUser => ({
  id: text(r, 'id'),
  name: text(r, 'name'),
  role: oneOf(r, 'role', ROLES),
  disabled: bool(r, 'disabled'),
  createdAt: date(r, 'created_at'),
});

const toUser = (r: Row): ConsoleUserWithHash => ({ ...toListed(r), passwordHash: text(r, 'password_hash') });

const withoutHash = ({ passwordHash: _hash, ...u }: ConsoleUserWithHash): ConsoleUser => u;

/** Inserts a user; null when the name is taken. */
export async function insertUser(db: Conn, u: { name: string; role: Role; passwordHash: string; now: Date }): Promise<ConsoleUser | null> {
  const res = await db.raw(
    `INSERT INTO console_users (name, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
    [u.name, u.role, u.passwordHash, u.now, u.now],
  );
  const [row] = rowsOf(res);
  return row ? withoutHash(toUser(row)) : null;
}

export async function findUserByName(db: Conn, name: string): Promise<ConsoleUserWithHash | null> {
  const res = await db.raw(`SELECT ${COLUMNS} FROM console_users WHERE name = ?`, [name]);
  const [row] = rowsOf(res);
  return row ? toUser(row) : null;
}

export async function listUsers(db: Conn): Promise<ConsoleUser[]> {
  const res = await db.raw(`SELECT ${COLUMNS} FROM console_users ORDER BY name`);
  return rowsOf(res).map((r) => withoutHash(toUser(r)));
}

/** A user as `users list` shows them: with the start of their latest console session, when there is one. */
export interface ConsoleUserListed extends ConsoleUser {
  lastSignInAt: Date | null;
}

export async function listUsersWithSignIn(db: Conn): Promise<ConsoleUserListed[]> {
  const res = await db.raw(
    `SELECT u.id::text AS id, u.name, u.role, u.disabled_at IS NOT NULL AS disabled, u.created_at,
            (SELECT max(s.created_at) FROM console_sessions s WHERE s.user_id = u.id) AS last_sign_in_at
     FROM console_users u ORDER BY u.name`,
  );
  return rowsOf(res).map((r) => ({ ...toListed(r), lastSignInAt: dateOrNull(r, 'last_sign_in_at') }));
}

/** Disables an enabled user; false when there is no such enabled user. */
export async function disableUser(db: Conn, name: string, now: Date): Promise<boolean> {
  const res = await db.raw(`UPDATE console_users SET disabled_at = ?, updated_at = ? WHERE name = ? AND disabled_at IS NULL RETURNING id`, [
    now,
    now,
    name,
  ]);
  return rowsOf(res).length === 1;
}

/** Replaces the password hash (and re-enables nobody: a disabled user stays disabled). */
export async function setPasswordHash(db: Conn, name: string, passwordHash: string, now: Date): Promise<boolean> {
  const res = await db.raw(`UPDATE console_users SET password_hash = ?, updated_at = ? WHERE name = ? RETURNING id`, [
    passwordHash,
    now,
    name,
  ]);
  return rowsOf(res).length === 1;
}
