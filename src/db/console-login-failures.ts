import type { Knex } from 'knex';
import { advisoryKey } from './advisory.ts';
import { arrayLiteral } from './unnest.ts';
import { int, oneRow, rowsOf, text } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** A reserved sign-in attempt: its row, and the name's failures it may forgive if the password is right. */
export interface LoginReservation {
  id: string;
  /** The name's failures already settled when this attempt was reserved (not those of concurrent attempts). */
  forgivable: string[];
}

/** Attempts allowed within the window: per name from one address, per name from anywhere, per address. */
export interface LoginLimits {
  pair: number;
  name: number;
  address: number;
}

/**
 * Reserves one sign-in attempt for a name and an address, or returns null when the pair, the name or
 * the address already has its limit of attempts (failed, or still being verified) since `since`. The
 * counts and the insert run under transaction advisory locks on the name and on the address, taken in
 * one order (no deadlock), so of any number of concurrent attempts none passes a limit, on Postgres
 * and on PGlite alike.
 */
export async function reserveLoginAttempt(
  db: Knex,
  a: { name: string; address: string; at: Date; since: Date; limits: LoginLimits },
): Promise<LoginReservation | null> {
  const keys = [advisoryKey(`console-login:name:${a.name}`), advisoryKey(`console-login:address:${a.address}`)].sort((x, y) =>
    BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0,
  );
  return db.transaction(async (tx) => {
    for (const key of keys) await tx.raw('SELECT pg_advisory_xact_lock(?::bigint)', [key]);
    const counts = await countLoginFailures(tx, a.name, a.address, a.since);
    if (counts.byPair >= a.limits.pair || counts.byName >= a.limits.name || counts.byAddress >= a.limits.address) return null;
    const settled = await tx.raw(`SELECT id::text AS id FROM console_login_failures WHERE name = ? AND at >= ? AND NOT pending`, [
      a.name,
      a.since,
    ]);
    const res = await tx.raw(
      `INSERT INTO console_login_failures (name, address, at, pending) VALUES (?, ?, ?, true) RETURNING id::text AS id`,
      [a.name, a.address, a.at],
    );
    return { id: text(oneRow(res), 'id'), forgivable: rowsOf(settled).map((r) => text(r, 'id')) };
  });
}

/** The reserved attempt failed: it stays, as a failure. */
export async function settleLoginFailure(db: Conn, reservation: LoginReservation): Promise<void> {
  await db.raw(`UPDATE console_login_failures SET pending = false WHERE id = ? AND pending`, [reservation.id]);
}

/**
 * The reserved attempt succeeded: its row goes, and so do the name's failures settled before it was
 * reserved (not the address's: one address may try many names). Failures of attempts that ran
 * alongside it stay, so a sign-in during a burst of guesses does not reset the guesser's count.
 */
export async function forgiveLoginFailures(db: Conn, reservation: LoginReservation): Promise<void> {
  const ids = [reservation.id, ...reservation.forgivable];
  await db.raw(`DELETE FROM console_login_failures WHERE id = ANY(?::bigint[])`, [arrayLiteral(ids, (id) => id)]);
}

/** Attempts since `since` (failed, or reserved and still being verified): for this name from this address, for the name, for the address. */
export async function countLoginFailures(
  db: Conn,
  name: string,
  address: string,
  since: Date,
): Promise<{ byPair: number; byName: number; byAddress: number }> {
  const res = await db.raw(
    `SELECT (SELECT count(*) FROM console_login_failures WHERE name = ? AND address = ? AND at >= ?)::int AS by_pair,
            (SELECT count(*) FROM console_login_failures WHERE name = ? AND at >= ?)::int AS by_name,
            (SELECT count(*) FROM console_login_failures WHERE address = ? AND at >= ?)::int AS by_address`,
    [name, address, since, name, since, address, since],
  );
  const [row] = rowsOf(res);
  return { byPair: int(row, 'by_pair'), byName: int(row, 'by_name'), byAddress: int(row, 'by_address') };
}
