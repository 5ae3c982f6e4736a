import type { Knex } from 'knex';
import type { Db } from './connect.ts';
import { advisoryKey, withHeldConnection } from './advisory.ts';

/** The job's lock as its holder sees it. */
export interface HeldLock {
  /** Aborted once the lock's connection reports that its session ended; another process may then take the lock. */
  lost: AbortSignal;
  /**
   * Asks the lock's own connection whether its session, and so the lock, is still there (a query on
   * it): a dropped connection often reaches another query before this one has reported its own end.
   */
  stillHeld(): Promise<boolean>;
}

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
export async function withJobLock<T>(db: Db, jobName: string, fn: (lock: HeldLock) => Promise<T>): Promise<JobLockResult<T>> {
  if (db.engine === 'pglite') return withLocalLock(db, jobName, fn);
  const key = advisoryKey(`job:${db.schema}:${jobName}`);
  let acquired = false;
  return withHeldConnection(
    db,
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
}

// PGlite is a single session in a single process, where advisory locks are re-entrant: track held jobs here.
const held = new WeakMap<Knex, Set<string>>();

async function withLocalLock<T>(db: Db, jobName: string, fn: (lock: HeldLock) => Promise<T>): Promise<JobLockResult<T>> {
  let jobs = held.get(db.knex);
  if (!jobs) held.set(db.knex, (jobs = new Set()));
  if (jobs.has(jobName)) return { acquired: false };
  jobs.add(jobName);
  try {
    // One session in this process: the lock ends only with the process.
    return { acquired: true, result: await fn({ lost: new AbortController().signal, stillHeld: async () => true }) };
  } finally {
    jobs.delete(jobName);
  }
}
