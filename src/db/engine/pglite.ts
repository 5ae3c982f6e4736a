import fs from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import type { PGlite } from '@electric-sql/pglite';
import { lockPgliteDir } from './pglite-dir-lock.ts';
import type { DbEngine, HeldLock, LockSession, TryLockResult } from './engine.ts';

/**
 * A knex on an embedded PGlite at dataDir (`memory://` for a throw-away one), the engine of it, and
 * the release of the directory's lock file (for close, after knex.destroy()).
 */
export async function openPglite(dataDir: string, schema: string): Promise<{ knex: Knex; engine: DbEngine; unlock: () => void }> {
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
    // knex-pglite's client class is not typed as a subclass of knex's Client.
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    // knex-pglite accepts an existing instance through a connection function.
    connection: (() => ({ pglite })) as unknown as Knex.StaticConnectionConfig,
    searchPath: [schema],
  });
  return { knex, engine: pgliteEngine(pglite), unlock };
}

/**
 * PGlite: one process (the directory's lock file) and one session, where advisory locks are
 * re-entrant and so exclude nothing: locks are kept in this process, and so is the provider's
 * request schedule (MemorySlotStore, chosen by the client when this gives none).
 */
export function pgliteEngine(pglite: PGlite): DbEngine {
  // Each lock held in this process, to the promise that settles when its holder is done.
  const held = new Map<string, Promise<void>>();
  const hold = async <T>(lock: string, fn: () => Promise<T>): Promise<T> => {
    // Marked held before fn starts: fn may ask for the same lock before its first await.
    let done!: () => void;
    const mark = new Promise<void>((resolve) => (done = resolve));
    held.set(lock, mark);
    try {
      return await fn();
    } finally {
      held.delete(lock);
      done();
    }
  };
  return {
    name: 'pglite',

    // One session: its transactions already run one at a time, so there is no other to keep out.
    transactionLock: async (): Promise<void> => undefined,

    async tryLock<T>(lock: string, fn: (held: HeldLock) => Promise<T>): Promise<TryLockResult<T>> {
      if (held.has(lock)) return { acquired: false };
      // One session in this process: the lock ends only with the process.
      const result = await hold(lock, () => fn({ lost: new AbortController().signal, stillHeld: async () => true }));
      return { acquired: true, result };
    },

    async waitLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
      // Woken in the order they began waiting; each looks again, as another may have taken it first.
      for (let current = held.get(lock); current; current = held.get(lock)) await current;
      return hold(lock, fn);
    },

    lockSession: async (): Promise<LockSession | null> => null,

    async runScript(_on: Knex, sql: string): Promise<void> {
      // PGlite's query() takes one statement; exec() runs a script on the same (only) session, so inside
      // whatever transaction `on` has open there.
      await pglite.exec(sql);
    },

    slotStore: () => undefined,
  };
}
