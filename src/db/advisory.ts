import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

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
  fn: (query: (sql: string, bindings: readonly unknown[]) => Promise<Record<string, unknown>[]>, lost: AbortSignal) => Promise<T>,
  release: (query: (sql: string, bindings: readonly unknown[]) => Promise<Record<string, unknown>[]>) => Promise<void>,
): Promise<T> {
  const client = knex.client as {
    acquireConnection(): Promise<unknown>;
    releaseConnection(c: unknown): Promise<void>;
  };
  const conn = await client.acquireConnection();
  const query = async (sql: string, bindings: readonly unknown[]) => {
    const res = await knex.raw(sql, bindings as Knex.RawBinding[]).connection(conn);
    return (res as { rows: Record<string, unknown>[] }).rows;
  };
  // The session (and so any advisory lock on it) ends when the connection does: tell fn.
  const lost = new AbortController();
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
      // knex's pool validator drops connections marked this way instead of reusing them.
      (conn as { __knex__disposed?: unknown }).__knex__disposed = new Error('advisory unlock failed');
      await (conn as { end?: () => Promise<void> }).end?.().catch(() => undefined);
    }
    await client.releaseConnection(conn);
  }
}
