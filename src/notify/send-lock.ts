import type { Db } from '../db/connect.ts';
import { advisoryKey, withHeldConnection } from '../db/advisory.ts';

export const BUSY = Symbol('busy');

const inProcess = new Set<string>();

/**
 * Runs fn unless another sender holds `name`: across processes with a Postgres session
 * advisory lock (try, never wait: the other sender is doing the same work), within this
 * process with a set (PGlite is one process, and two calls here could interleave too).
 */
export async function withSendLock<T>(db: Db, name: string, fn: () => Promise<T>): Promise<T | typeof BUSY> {
  if (inProcess.has(name)) return BUSY;
  inProcess.add(name);
  try {
    if (db.engine === 'pglite') return await fn();
    const key = advisoryKey(`notify:${name}`);
    let held = false;
    return await withHeldConnection(
      db,
      async (query) => {
        const rows = await query('SELECT pg_try_advisory_lock(?::bigint) AS ok', [key]);
        held = rows[0]?.ok === true;
        return held ? await fn() : BUSY;
      },
      // withHeldConnection discards the connection if this fails, which frees the lock too.
      async (query) => {
        if (held) await query('SELECT pg_advisory_unlock(?::bigint)', [key]);
      },
    );
  } finally {
    inProcess.delete(name);
  }
}
