import type { Knex } from 'knex';
import type { Config } from '../config/config.ts';
import type { DbEngine } from './engine/engine.ts';
import { openPglite } from './engine/pglite.ts';
import { openPostgres } from './engine/postgres.ts';

/**
 * One open database, whichever engine. Through `knex` both engines return:
 *   numeric      -> string ("12345678901234.56"), never a JS number
 *   int8 / ids   -> string ("42"): bigserial ids and count(*) are strings on both engines
 *   int4         -> number (check_count, checked, selected)
 *   timestamptz  -> Date
 *   jsonb        -> parsed value; text[] -> string[]
 * Writes: pass jsonb as JSON.stringify(...) text (pg would turn a JS array into a Postgres array literal).
 * What the engines do differently (locks, scripts, the provider's request schedule) is asked of `engine`.
 */
export interface Db {
  readonly knex: Knex;
  readonly engine: DbEngine;
  /** The schema holding payrecon's tables; every connection's search_path is set to it. */
  readonly schema: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Postgres pool size (at least 2: job and migration locks hold one connection for a whole run). */
  poolMax?: number;
  /** Postgres application_name, shown in pg_stat_activity. */
  applicationName?: string;
  /** PGlite only: `memory://` for a throw-away database; default: config.PGLITE_DIR. */
  pgliteDataDir?: string;
}

const DEFAULT_POOL_MAX = 10;

/** The engine is chosen here, once: Postgres when DATABASE_URL is set, else embedded PGlite. */
export async function openDatabase(config: Config, opts: OpenOptions = {}): Promise<Db> {
  const schema = config.DATABASE_SCHEMA;
  if (config.DATABASE_URL) {
    const { knex, engine } = await openPostgres(config.DATABASE_URL, {
      schema,
      poolMax: opts.poolMax ?? DEFAULT_POOL_MAX,
      applicationName: opts.applicationName ?? 'payrecon',
      queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
    });
    return { knex, engine, schema, close: () => knex.destroy() };
  }
  const { knex, engine, unlock } = await openPglite(opts.pgliteDataDir ?? config.PGLITE_DIR, schema);
  const close = async () => {
    try {
      await knex.destroy();
    } finally {
      unlock();
    }
  };
  return { knex, engine, schema, close };
}
