import type { Db } from '../db/connect.ts';

export const BUSY = Symbol('busy');

const inProcess = new Set<string>();

/**
 * Runs fn unless another sender holds `name`: across processes with the database's lock (try,
 * never wait: the other sender is doing the same work), within this process with a set first.
 */
export async function withSendLock<T>(db: Db, name: string, fn: () => Promise<T>): Promise<T | typeof BUSY> {
  if (inProcess.has(name)) return BUSY;
  inProcess.add(name);
  try {
    let out: T | typeof BUSY = BUSY;
    await db.engine.tryLock(`notify:${name}`, async () => {
      out = await fn();
    });
    return out;
  } finally {
    inProcess.delete(name);
  }
}
