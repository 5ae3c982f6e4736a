import { ensurePostgresTemplate, PG_TEMPLATE_ENV } from './helpers/db-template.ts';
import { probeServer, TEST_DATABASE_URL } from './helpers/db.ts';

/**
 * For the projects with database tests, after global-setup.ts: the migrated Postgres template
 * (kept across runs while sql/ is unchanged). The PGlite one is built by its first user.
 */
export default async function setup(): Promise<void> {
  if (process.env[PG_TEMPLATE_ENV] || !(await probeServer())) return;
  process.env[PG_TEMPLATE_ENV] = await ensurePostgresTemplate(TEST_DATABASE_URL);
}
