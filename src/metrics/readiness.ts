import type { Db } from '../db/connect.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { pingDatabase } from '../db/ops-gauges.ts';
import { messageOf } from '../domain/errors.ts';

/**
 * The database half of /readyz: it answers within timeoutMs and has no pending migration.
 * Null when ready, else a reason a person can act on.
 */
export async function databaseNotReady(db: Db, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`database did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  const check = (async (): Promise<string | null> => {
    try {
      await pingDatabase(db.knex, timeoutMs);
    } catch (err) {
      return `database unreachable: ${messageOf(err).split('\n')[0]}`;
    }
    const pending = await pendingMigrations(db).catch(() => null);
    if (pending === null) return 'database unreachable while reading its migrations';
    return pending.length ? `database not migrated: ${pending.length} pending (run payrecon migrate)` : null;
  })();
  try {
    return await Promise.race([check, bound]);
  } finally {
    clearTimeout(timer);
  }
}
