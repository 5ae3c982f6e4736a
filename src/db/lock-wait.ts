import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from './connect.ts';
import { withJobLock, type JobLockResult } from './locks.ts';

export interface LockWait {
  /** How long to keep trying while another run holds the lock; 0 = one try (skip at once). */
  waitMs: number;
  /** How often to try again (default 1 s). */
  pollMs?: number;
  /** Stops the waiting (SIGTERM): the result is then "not acquired". */
  signal?: AbortSignal;
  /** Called once, when the first try finds the lock held and waiting begins. */
  onWait?: () => void;
}

/**
 * withJobLock, retried until the lock is free or waitMs has passed. Elapsed time is measured on the
 * monotonic clock, never the injected business clock (a test's fixed clock would never run out).
 */
export async function withJobLockWaiting<T>(
  db: Db,
  jobName: string,
  fn: Parameters<typeof withJobLock<T>>[2],
  wait: LockWait,
): Promise<JobLockResult<T>> {
  const start = performance.now();
  let waiting = false;
  for (;;) {
    const locked = await withJobLock(db, jobName, fn);
    if (locked.acquired) return locked;
    const left = wait.waitMs - (performance.now() - start);
    if (left <= 0 || wait.signal?.aborted) return locked;
    if (!waiting) wait.onWait?.();
    waiting = true;
    await sleep(Math.min(wait.pollMs ?? 1000, left), undefined, { signal: wait.signal }).catch(() => undefined);
  }
}
