import type { Knex } from 'knex';
import type { Db } from './connect.ts';
import { NotMigratedError } from './errors.ts';
import { quoteIdent } from './ident.ts';
import { rowsOf, text, textOrNull, type Row } from './row.ts';
import { listMigrationFiles, readMigrationFile } from './sql-files.ts';

export { NotMigratedError };

const TABLE = 'knex_migrations';

/** sql/NNN_name.sql as knex migrations; forward-only, so down() refuses. */
function migrationSource(db: Db): Knex.MigrationSource<string> {
  return {
    getMigrations: async () => listMigrationFiles(),
    getMigrationName: (name) => name,
    getMigration: async (name) => ({
      up: async (trx: Knex) => {
        // knex runs the pending batch in one transaction; SET LOCAL keeps the tables in our schema.
        await trx.raw(`SET LOCAL search_path TO ${quoteIdent(db.schema)}`);
        const sql = readMigrationFile(name);
        await db.engine.runScript(trx, sql);
      },
      down: async () => {
        throw new Error(`migrations are forward-only; write a new sql/NNN_*.sql instead of reverting ${name}`);
      },
    }),
  };
}

function migratorConfig(db: Db): Knex.MigratorConfig {
  return { migrationSource: migrationSource(db), schemaName: db.schema, tableName: TABLE };
}

export interface MigrateResult {
  /** Migration files applied by this call, in order; empty when already up to date. */
  applied: string[];
}

/**
 * Creates the schema and applies pending migrations. Safe when several processes migrate at once:
 * they queue on the schema's migration lock and the later ones find nothing pending.
 */
export async function migrate(db: Db): Promise<MigrateResult> {
  const run = async (): Promise<MigrateResult> => {
    await db.knex.raw(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(db.schema)}`);
    // knex types latest() as any: it answers [batch number, the files applied].
    const [, log] = (await db.knex.migrate.latest(migratorConfig(db))) as [number, string[]];
    return { applied: log };
  };
  return db.engine.waitLock(`migrate:${db.schema}`, run);
}

/** Migration files not yet applied; reads only, never creates the schema or knex's table. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = listMigrationFiles();
  const reg = await db.knex.raw('select to_regclass(?)::text as t', [`${quoteIdent(db.schema)}.${TABLE}`]);
  if (!textOrNull(rowsOf(reg)[0], 't')) return all;
  const done = new Set((await db.knex.withSchema(db.schema).from(TABLE).select('name')).map((r: Row) => text(r, 'name')));
  return all.filter((f) => !done.has(f));
}

/** Throws NotMigratedError ("run `payrecon migrate`", naming the database when given) when any migration is pending. */
export async function assertMigrated(db: Db, described?: { database: string; hint?: string }): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length) throw new NotMigratedError(db.schema, pending, described?.database, described?.hint);
}
