import type { Knex } from 'knex';

type Conn = Knex | Knex.Transaction;

/** This database's installation id (sql/026_installation.sql), made once at migration. */
export async function installationId(db: Conn): Promise<string> {
  const res = (await db.raw(`SELECT id::text AS id FROM installation`)) as { rows: Array<{ id: string }> };
  const id = res.rows[0]?.id;
  if (!id) throw new Error('installation: no row; the migration sql/026_installation.sql makes it, run `payrecon migrate`');
  return id;
}
