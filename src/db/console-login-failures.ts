import type { Knex } from 'knex';

type Conn = Knex | Knex.Transaction;

export async function recordLoginFailure(db: Conn, f: { name: string; address: string; at: Date }): Promise<void> {
  await db.raw(`INSERT INTO console_login_failures (name, address, at) VALUES (?, ?, ?)`, [f.name, f.address, f.at]);
}

/** Failed logins since `since`, for this user name and for this address. */
export async function countLoginFailures(
  db: Conn,
  name: string,
  address: string,
  since: Date,
): Promise<{ byName: number; byAddress: number }> {
  const res = (await db.raw(
    `SELECT (SELECT count(*) FROM console_login_failures WHERE name = ? AND at >= ?)::int AS by_name,
            (SELECT count(*) FROM console_login_failures WHERE address = ? AND at >= ?)::int AS by_address`,
    [name, since, address, since],
  )) as { rows: Array<{ by_name: number; by_address: number }> };
  return { byName: res.rows[0].by_name, byAddress: res.rows[0].by_address };
}

/** A successful login forgives the user name's failures (not the address's: one address may try many names). */
export async function clearLoginFailures(db: Conn, name: string): Promise<void> {
  await db.raw(`DELETE FROM console_login_failures WHERE name = ?`, [name]);
}
