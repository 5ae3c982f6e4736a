import type { Config } from '../config/config.ts';

/**
 * Which database a command uses, in words a person can act on: user, host, port and database of
 * DATABASE_URL (never the password), or the embedded PGlite directory.
 */
export function describeDatabase(config: Config): string {
  if (!config.DATABASE_URL) return `embedded PGlite at ${config.PGLITE_DIR}`;
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
