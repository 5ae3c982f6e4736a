import path from 'node:path';
import type { Config } from '../config/config.ts';

/**
 * Which database a command uses, in words a person can act on: user, host, port and database of
 * DATABASE_URL (never the password), or the embedded PGlite directory.
 */
export function describeDatabase(config: Config): string {
  // Absolute: under cron the working directory is not the one the operator thinks of.
  if (!config.DATABASE_URL) return `embedded PGlite at ${path.resolve(config.PGLITE_DIR)}`;
  try {
    const u = new URL(config.DATABASE_URL);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default database)';
    return `postgres ${user}${u.hostname || 'localhost'}:${u.port || '5432'}/${database}, schema ${config.DATABASE_SCHEMA}`;
  } catch {
    // The config check accepts only parseable URLs; this keeps the description from ever echoing one.
    return `postgres (DATABASE_URL), schema ${config.DATABASE_SCHEMA}`;
  }
}

/**
 * How the database was chosen, for a "not migrated" message: the embedded one is the silent
 * default when DATABASE_URL is missing (cron's empty environment), so say so before anyone migrates it.
 */
export function databaseChoiceHint(config: Config): string {
  if (!config.DATABASE_URL)
    return 'DATABASE_URL is not set, so payrecon looked at its embedded database: if you meant your Postgres, set DATABASE_URL (in the environment, or in a .env file in the working directory) instead of migrating this one.';
  return 'If this is not the database you meant, fix DATABASE_URL (environment or .env in the working directory) instead of migrating this one.';
}
