import type { Knex } from 'knex';
import { rowsOf, text } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** This database's installation id (sql/026_installation.sql), made once at migration. */
export async function installationId(db: Conn): Promise<string> {
  const res = await db.raw(`SELECT id::text AS id FROM installation`);
  const [row] = rowsOf(res);
  if (!row) throw new Error('installation: no row; the migration sql/026_installation.sql makes it, run `payrecon migrate`');
  return text(row, 'id');
}
