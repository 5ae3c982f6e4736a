import type { Db } from './connect.ts';
import type { HeldLock, TryLockResult } from './engine/engine.ts';

export type { HeldLock };
export type JobLockResult<T> = TryLockResult<T>;

/** The name of a job's lock on this database's schema (also how lock-holder.ts finds who holds it). */
export const jobLockName = (db: Db, jobName: string): string => `job:${db.schema}:${jobName}`;

/**
 * A job's lock of one account: `<job>:<account>` when an account is named (several configured), so
 * accounts' runs never wait for one another; the job's own name otherwise (one account: unchanged).
 */
export const accountLockName = (jobName: string, account: string | undefined): string =>
  account === undefined ? jobName : `${jobName}:${account}`;

/**
 * Runs fn only if no other run of jobName holds the lock, across processes and machines sharing the
 * database (how, is the engine's: src/db/engine/). Unlocked when fn ends, also when it throws.
 */
export function withJobLock<T>(db: Db, jobName: string, fn: (lock: HeldLock) => Promise<T>): Promise<JobLockResult<T>> {
  return db.engine.tryLock(jobLockName(db, jobName), fn);
}
