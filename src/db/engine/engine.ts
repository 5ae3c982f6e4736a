import type { Knex } from 'knex';
import type { SlotStore } from '../../provider/slot-store.ts';

export type EngineName = 'postgres' | 'pglite';

/** A lock as its holder sees it while fn runs. */
export interface HeldLock {
  /** Aborted once the lock's connection reports that its session ended; another process may then take the lock. */
  lost: AbortSignal;
  /**
   * Asks the lock's own connection whether its session, and so the lock, is still there (a query on
   * it): a dropped connection often reaches another query before this one has reported its own end.
   */
  stillHeld(): Promise<boolean>;
}

export interface TryLockResult<T> {
  /** False when another process (or call) holds the lock; fn did not run. */
  acquired: boolean;
  result?: T;
}

/** The database session holding a lock, as the engine can tell it. */
export interface LockSession {
  pid: number;
  /** That session's application_name, e.g. "payrecon-reconcile". */
  application: string | null;
}

/**
 * What differs between the two engines payrecon runs on, chosen once when the database is opened
 * (src/db/connect.ts), as Kysely's dialect adapters are. Callers ask this object; none tests the
 * engine's name. Locks are named ("job:payrecon:reconcile"); each engine turns a name into its own key.
 *
 * - postgres (./postgres.ts): many processes share the database; locks are session advisory locks on
 *   a connection held out of the pool, the provider's request schedule is a row.
 * - pglite (./pglite.ts): one process, one session (a lock file on the directory guarantees it), where
 *   advisory locks are re-entrant: locks and the schedule are kept in this process.
 */
export interface DbEngine {
  /** For people and --json output only; behaviour is asked of the methods below. */
  readonly name: EngineName;
  /** Runs fn only if no other holder of `lock` runs, in any process on this database; never waits. Released when fn ends, also when it throws. */
  tryLock<T>(lock: string, fn: (held: HeldLock) => Promise<T>): Promise<TryLockResult<T>>;
  /** Waits until no other holder of `lock` runs, then runs fn holding it. */
  waitLock<T>(lock: string, fn: () => Promise<T>): Promise<T>;
  /** Holds `lock` until `tx` ends, against every other transaction taking it in any process (raises of one alert fingerprint). */
  transactionLock(tx: Knex.Transaction, lock: string): Promise<void>;
  /** The session holding `lock` taken by tryLock or waitLock; null when free or when the engine cannot tell (PGlite). */
  lockSession(lock: string): Promise<LockSession | null>;
  /** Runs a script of several statements on `on` (the database or a transaction of it), in one round trip. */
  runScript(on: Knex, sql: string): Promise<void>;
  /** The provider's request schedule shared by every process on this database; undefined: this one process keeps it in memory. */
  slotStore(): SlotStore | undefined;
}
