import { ensurePostgresTemplate, PG_TEMPLATE_ENV } from './helpers/db-template.ts';
import { probeServer, TEST_DATABASE_URL } from './helpers/db.ts';
import { insisting, missingInCi } from './helpers/skips.ts';

/**
 * For the projects with database tests, after global-setup.ts: the migrated Postgres template
 * (kept across runs while sql/ is unchanged). The PGlite one is built by its first user.
 */
export default async function setup(): Promise<void> {
  if (process.env[PG_TEMPLATE_ENV]) return;
  if (!(await probeServer())) {
    // CI runs every test on both engines: a missing server fails the run instead of skipping.
    if (insisting() && process.env.TEST_DB_ENGINE !== 'pglite')
      throw missingInCi(`no Postgres answers at ${TEST_DATABASE_URL} (start one, or set TEST_DATABASE_URL)`);
    return;
  }
  process.env[PG_TEMPLATE_ENV] = await ensurePostgresTemplate(TEST_DATABASE_URL);
}
