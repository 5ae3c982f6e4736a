import { printErr } from '../log/terminal.ts';
import fs from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Config } from '../config/config.ts';
import { lockPgliteDir } from './pglite-lock.ts';
import { discardOnQueryTimeout } from './query-timeout.ts';

/**
 * One open database, whichever engine. Through `knex` both engines return:
 *   numeric      -> string ("12345678901234.56"), never a JS number
 *   int8 / ids   -> string ("42"): bigserial ids and count(*) are strings on both engines
 *   int4         -> number (check_count, checked, selected)
 *   timestamptz  -> Date
 *   jsonb        -> parsed value; text[] -> string[]
 * Writes: pass jsonb as JSON.stringify(...) text (pg would turn a JS array into a Postgres array literal).
 */
export interface Db {
  readonly knex: Knex;
  readonly engine: 'postgres' | 'pglite';
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

export async function openDatabase(config: Config, opts: OpenOptions = {}): Promise<Db> {
  const schema = config.DATABASE_SCHEMA;
  if (config.DATABASE_URL) return openPostgres(config.DATABASE_URL, schema, { ...opts, queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS });
  return openPglite(opts.pgliteDataDir ?? config.PGLITE_DIR, schema);
}

async function openPostgres(url: string, schema: string, opts: OpenOptions & { queryTimeoutMs: number }): Promise<Db> {
  const knex = knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      application_name: opts.applicationName ?? 'payrecon',
      types: pgTypes,
      // A partition sends no RST: keepalive probes find the dead peer (also under an idle lock connection),
      // and a query unanswered for DATABASE_QUERY_TIMEOUT_MS fails instead of waiting forever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: opts.queryTimeoutMs,
      connectionTimeoutMillis: Math.min(opts.queryTimeoutMs, 30_000),
    } as Knex.PgConnectionConfig,
    // knex sets search_path on every new pooled connection, before its first query.
    searchPath: [schema],
    // A connection whose query timed out may be wedged (a partition): discarded, never handed out again.
    pool: { min: 0, max: Math.max(2, opts.poolMax ?? DEFAULT_POOL_MAX), afterCreate: discardOnQueryTimeout },
    log: KNEX_LOG,
  });
  // Fail here, with the driver's message, rather than at the first repository call.
  await knex.raw('select 1');
  return { knex, engine: 'postgres', schema, close: () => knex.destroy() };
}

/**
 * knex writes its warnings with stacks to stdout, into tables and --json output. A failed connection
 * is also thrown to the caller, who reports it in one line; other warnings go to stderr, first line only.
 */
const knexWarning = (message: unknown) => {
  const text = String(message);
  if (!text.startsWith('Acquire connection error')) printErr(`knex: ${text.split('\n')[0]}\n`);
};
const KNEX_LOG = { warn: knexWarning, error: knexWarning, deprecate: knexWarning, debug: () => undefined };

const NUMERIC_ARRAY = 1231;
const TEXT_ARRAY = 1009;
/** pg's defaults, except numeric[] which pg parses into floats: read it like text[] instead. Per client, not global. */
const builtinParser = pg.types.getTypeParser as (oid: number, format?: string) => (value: string) => unknown;
const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    oid === NUMERIC_ARRAY && format !== 'binary' ? builtinParser(TEXT_ARRAY, 'text') : builtinParser(oid, format),
} as unknown as Knex.PgCustomTypesConfig;

async function openPglite(dataDir: string, schema: string): Promise<Db> {
  // Loaded only when used: the embedded engine is large, and a Postgres deployment never needs it.
  const [{ PGlite, types: pgliteTypes }, { default: ClientPgLite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('knex-pglite'),
  ]);
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) fs.mkdirSync(dataDir, { recursive: true });
  // Before PGlite touches the files: a second process on the same directory would corrupt it.
  const unlock = inMemory ? () => undefined : lockPgliteDir(dataDir);
  let pglite: PGlite;
  try {
    // PGlite returns int8 as BigInt by default; strings keep both engines alike.
    pglite = new PGlite(inMemory ? undefined : dataDir, {
      parsers: { [pgliteTypes.INT8]: (v: string) => v, [pgliteTypes.NUMERIC]: (v: string) => v },
    });
    await pglite.waitReady;
  } catch (err) {
    unlock();
    throw err;
  }
  const knex = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    // knex-pglite accepts an existing instance through a connection function.
    connection: (() => ({ pglite })) as unknown as Knex.StaticConnectionConfig,
    searchPath: [schema],
  });
  pglites.set(knex, pglite);
  const close = async () => {
    try {
      await knex.destroy();
    } finally {
      unlock();
    }
  };
  return { knex, engine: 'pglite', schema, close };
}

const pglites = new WeakMap<Knex, PGlite>();

/** The PGlite instance behind a pglite Db, for multi-statement scripts (its query() takes one statement). */
export function pgliteOf(db: Db): PGlite {
  const p = pglites.get(db.knex);
  if (!p) throw new Error('not a PGlite database');
  return p;
}
