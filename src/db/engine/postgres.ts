import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { advisoryKey, withHeldConnection } from '../advisory.ts';
import { PostgresSlotStore } from '../provider-budget.ts';
import { discardOnQueryTimeout } from '../query-timeout.ts';
import { KNEX_LOG } from './knex-log.ts';
import { parseTimestamptz } from './timestamptz.ts';
import type { DbEngine, HeldLock, LockSession, TryLockResult } from './engine.ts';

export interface PostgresOptions {
  schema: string;
  /** Pool size (at least 2: job and migration locks hold one connection for a whole run). */
  poolMax: number;
  /** application_name, shown in pg_stat_activity. */
  applicationName: string;
  queryTimeoutMs: number;
}

/** A knex on the Postgres at url, and the engine of it. Fails here, with the driver's message, rather than at the first repository call. */
export async function openPostgres(url: string, opts: PostgresOptions): Promise<{ knex: Knex; engine: DbEngine }> {
  const knex = knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      application_name: opts.applicationName,
      types: pgTypes,
      // A partition sends no RST: keepalive probes find the dead peer (also under an idle lock connection),
      // and a query unanswered for DATABASE_QUERY_TIMEOUT_MS fails instead of waiting forever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: opts.queryTimeoutMs,
      connectionTimeoutMillis: Math.min(opts.queryTimeoutMs, 30_000),
    },
    // knex sets search_path on every new pooled connection, before its first query.
    searchPath: [opts.schema],
    // A connection whose query timed out may be wedged (a partition): discarded, never handed out again.
    pool: { min: 0, max: Math.max(2, opts.poolMax), afterCreate: discardOnQueryTimeout },
    log: KNEX_LOG,
  });
  await knex.raw('select 1');
  return { knex, engine: postgresEngine(knex) };
}

const NUMERIC_ARRAY = 1231;
const TEXT_ARRAY = 1009;
const TIMESTAMPTZ = 1184;
// pg types the lookup by its TypeId enum; knex passes plain oids and format names.
const builtinParser = pg.types.getTypeParser as (oid: number, format?: string) => (value: string) => unknown;
const builtinTimestamptz = builtinParser(TIMESTAMPTZ, 'text');
const readTimestamptz = (text: string) => parseTimestamptz(text, builtinTimestamptz);
/**
 * pg's defaults, except numeric[] which pg parses into floats: read it like text[] instead; and
 * timestamptz, read without pg's regular expressions when in UTC (same Date). Per client, not global.
 */
const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    format === 'binary'
      ? builtinParser(oid, format)
      : oid === NUMERIC_ARRAY
        ? builtinParser(TEXT_ARRAY, 'text')
        : oid === TIMESTAMPTZ
          ? readTimestamptz
          : builtinParser(oid, format),
};

/**
 * Postgres: processes on several machines share the database. A lock is a session-level advisory
 * lock on a connection held out of the pool for as long as fn runs (fn keeps using the pool's other
 * connections), so it ends with its session if the process dies.
 */
export function postgresEngine(knex: Knex): DbEngine {
  return {
    name: 'postgres',

    async transactionLock(tx: Knex.Transaction, lock: string): Promise<void> {
      await tx.raw('SELECT pg_advisory_xact_lock(?::bigint)', [advisoryKey(lock)]);
    },

    async tryLock<T>(lock: string, fn: (held: HeldLock) => Promise<T>): Promise<TryLockResult<T>> {
      const key = advisoryKey(lock);
      let acquired = false;
      return withHeldConnection(
        knex,
        async (query, lost) => {
          const rows = await query('select pg_try_advisory_lock(?::bigint) as ok', [key]);
          acquired = rows[0]?.ok === true;
          if (!acquired) return { acquired: false };
          const stillHeld = async () => {
            if (lost.aborted) return false;
            // A session-level advisory lock lives exactly as long as its session: an answer means it is held.
            return query('select 1', []).then(
              () => true,
              () => false,
            );
          };
          return { acquired: true, result: await fn({ lost, stillHeld }) };
        },
        async (query) => {
          if (acquired) await query('select pg_advisory_unlock(?::bigint)', [key]);
        },
      );
    },

    async waitLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
      const key = advisoryKey(lock);
      return withHeldConnection(
        knex,
        async (query) => {
          await query('select pg_advisory_lock(?::bigint)', [key]);
          return fn();
        },
        async (query) => {
          await query('select pg_advisory_unlock(?::bigint)', [key]);
        },
      );
    },

    async lockSession(lock: string): Promise<LockSession | null> {
      const key = advisoryKey(lock);
      // A bigint advisory key is stored in pg_locks as classid = high 32 bits, objid = low 32 bits, objsubid = 1.
      const res = await knex.raw<{ rows: Array<{ pid: unknown; application_name: unknown }> }>(
        `SELECT l.pid, a.application_name
           FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND l.classid::bigint = (?::bigint >> 32) & 4294967295
            AND l.objid::bigint = ?::bigint & 4294967295
          LIMIT 1`,
        [key, key],
      );
      const row = res.rows[0];
      if (!row || typeof row.pid !== 'number') return null;
      return { pid: row.pid, application: typeof row.application_name === 'string' && row.application_name ? row.application_name : null };
    },

    async runScript(on: Knex, sql: string): Promise<void> {
      // Without bindings pg sends the simple query protocol, which takes several statements. knex still
      // numbers every bare `?` as a binding ($1, $2: how sql/029's regular expression was broken), and
      // turns `\?` into `?`: each `?` is escaped so the script arrives as written.
      if (sql.includes('\\?')) throw new Error('runScript: a backslash before `?` cannot pass through knex unchanged; write [?] instead');
      await on.raw(sql.replace(/\?/g, '\\?'));
    },

    slotStore: () => new PostgresSlotStore(knex),
  };
}
