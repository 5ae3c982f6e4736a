import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { rowsOf, type Row } from './row.ts';

/** A stable signed 64-bit advisory lock key (as decimal text) for a name, e.g. "migrate:payrecon". */
export function advisoryKey(name: string): string {
  return createHash('sha256').update(`payrecon:${name}`).digest().readBigInt64BE(0).toString();
}

/**
 * Runs fn while one pooled connection is held out of the pool, so a session-level advisory lock
 * taken on it lives exactly as long as fn. Postgres only (PGlite has a single connection): see engine/postgres.ts.
 * The connection is given back only after `release` ran on it; if that fails it is discarded,
 * which ends the session and so frees any lock it held.
 */
export async function withHeldConnection<T>(
  knex: Knex,
  fn: (query: (sql: string, bindings: readonly Knex.RawBinding[]) => Promise<Row[]>, lost: AbortSignal) => Promise<T>,
  release: (query: (sql: string, bindings: readonly Knex.RawBinding[]) => Promise<Row[]>) => Promise<void>,
): Promise<T> {
  // knex's pool methods and its connections' events are not in its public types.
  const client = knex.client as {
    acquireConnection(): Promise<unknown>;
    releaseConnection(c: unknown): Promise<void>;
  };
  const conn = await client.acquireConnection();
  const query = async (sql: string, bindings: readonly Knex.RawBinding[]) => {
    const res = await knex.raw(sql, bindings).connection(conn);
    return rowsOf(res);
  };
  // The session (and so any advisory lock on it) ends when the connection does: tell fn.
  const lost = new AbortController();
  // A pg client is an EventEmitter; knex hands it out as unknown.
  const events = conn as { on?: (e: string, l: () => void) => void; off?: (e: string, l: () => void) => void };
  const onLost = () => lost.abort(new Error('the database connection holding the lock was closed'));
  events.on?.('error', onLost);
  events.on?.('end', onLost);
  try {
    return await fn(query, lost.signal);
  } finally {
    events.off?.('error', onLost);
    events.off?.('end', onLost);
    try {
      await release(query);
    } catch {
      // knex's pool validator drops connections marked this way instead of reusing them (knex internals, untyped).
      (conn as { __knex__disposed?: unknown }).__knex__disposed = new Error('advisory unlock failed');
      await (conn as { end?: () => Promise<void> }).end?.().catch(() => undefined);
    }
    await client.releaseConnection(conn);
  }
}
