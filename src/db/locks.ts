import type { Knex } from 'knex';
import type { Db } from './connect.ts';
import { advisoryKey, withHeldConnection } from './advisory.ts';

export interface JobLockResult<T> {
  /** False when another process (or call) holds the job's lock; fn did not run. */
  acquired: boolean;
  result?: T;
}

/**
 * Runs fn only if no other run of jobName holds the lock, across processes and machines sharing the
 * database: a session-level pg_try_advisory_lock on a connection held out of the pool for the whole
 * run (fn keeps using db.knex's other connections). Unlocked when fn ends, also when it throws.
 */
export async function withJobLock<T>(db: Db, jobName: string, fn: (lock: { lost: AbortSignal }) => Promise<T>): Promise<JobLockResult<T>> {
  if (db.engine === 'pglite') return withLocalLock(db, jobName, fn);
  const key = advisoryKey(`job:${db.schema}:${jobName}`);
  let acquired = false;
  return withHeldConnection(
    db,
    async (query, lost) => {
      const rows = await query('select pg_try_advisory_lock(?::bigint) as ok', [key]);
      acquired = rows[0]?.ok === true;
      if (!acquired) return { acquired: false };
      // lost: the lock's session ended (connection terminated); another process may now take it.
      return { acquired: true, result: await fn({ lost }) };
    },
    async (query) => {
      if (acquired) await query('select pg_advisory_unlock(?::bigint)', [key]);
    },
  );
}

// PGlite is a single session in a single process, where advisory locks are re-entrant: track held jobs here.
const held = new WeakMap<Knex, Set<string>>();

async function withLocalLock<T>(db: Db, jobName: string, fn: (lock: { lost: AbortSignal }) => Promise<T>): Promise<JobLockResult<T>> {
  let jobs = held.get(db.knex);
  if (!jobs) held.set(db.knex, (jobs = new Set()));
  if (jobs.has(jobName)) return { acquired: false };
  jobs.add(jobName);
  try {
    return { acquired: true, result: await fn({ lost: new AbortController().signal }) };
  } finally {
    jobs.delete(jobName);
  }
}
