import type { Knex } from 'knex';
import { ROLES, type Role } from './console-users.ts';
import { bool, date, dateOrNull, oneOf, oneRow, rowsOf, text } from './row.ts';

type Conn = Knex | Knex.Transaction;

export interface SessionRow {
  id: string;
  userId: string;
  userName: string;
  role: Role;
  userDisabled: boolean;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  endedAt: Date | null;
}

export async function insertSession(
  db: Conn,
  s: { tokenHash: string; userId: string; csrfToken: string; address: string; now: Date },
): Promise<string> {
  const res = await db.raw(
    `INSERT INTO console_sessions (token_hash, user_id, csrf_token, address, created_at, last_seen_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id::text AS id`,
    [s.tokenHash, s.userId, s.csrfToken, s.address, s.now, s.now],
  );
  return text(oneRow(res), 'id');
}

export async function findSessionByTokenHash(db: Conn, tokenHash: string): Promise<SessionRow | null> {
  const res = await db.raw(
    `SELECT s.id::text AS id, s.user_id::text AS user_id, u.name, u.role, u.disabled_at IS NOT NULL AS disabled,
            s.csrf_token, s.created_at, s.last_seen_at, s.ended_at
       FROM console_sessions s JOIN console_users u ON u.id = s.user_id
      WHERE s.token_hash = ?`,
    [tokenHash],
  );
  const r = rowsOf(res)[0];
  if (!r) return null;
  return {
    id: text(r, 'id'),
    userId: text(r, 'user_id'),
    userName: text(r, 'name'),
    role: oneOf(r, 'role', ROLES),
    userDisabled: bool(r, 'disabled'),
    csrfToken: text(r, 'csrf_token'),
    createdAt: date(r, 'created_at'),
    lastSeenAt: date(r, 'last_seen_at'),
    endedAt: dateOrNull(r, 'ended_at'),
  };
}

/** Moves last_seen_at forward on a live session (never backwards, never on an ended one). */
export async function touchSession(db: Conn, id: string, now: Date): Promise<void> {
  await db.raw(`UPDATE console_sessions SET last_seen_at = ? WHERE id = ? AND ended_at IS NULL AND last_seen_at < ?`, [now, id, now]);
}

export async function endSession(db: Conn, id: string, reason: string, now: Date): Promise<void> {
  await db.raw(`UPDATE console_sessions SET ended_at = ?, ended_reason = ? WHERE id = ? AND ended_at IS NULL`, [now, reason, id]);
}

/** Ends every live session of a user (disabled, password changed). Returns how many. */
export async function endUserSessions(db: Conn, userName: string, reason: string, now: Date): Promise<number> {
  const res = await db.raw(
    `UPDATE console_sessions SET ended_at = ?, ended_reason = ?
      WHERE ended_at IS NULL AND user_id = (SELECT id FROM console_users WHERE name = ?) RETURNING id`,
    [now, reason, userName],
  );
  return rowsOf(res).length;
}
