/**
 * Migrate once, clone per test file. Applying sql/ to a new database costs seconds (PGlite's initdb
 * alone is most of it); copying a migrated one costs a fraction of that.
 *
 * - Postgres: a template database named by a hash of sql/, built by the run's global setup under an
 *   advisory lock and kept across runs while the hash matches. It is built under another name and
 *   renamed when complete, and no one may connect to it afterwards (CREATE DATABASE … TEMPLATE
 *   fails while any session is connected to the template).
 * - PGlite: a migrated data directory under the run's temporary root, built by the first worker
 *   that needs one (an O_EXCL lock file; the others poll for it) and copied per test database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import { LOCK_FILE } from '../../src/db/engine/pglite-dir-lock.ts';
import { listMigrationFiles, readMigrationFile, SQL_DIR } from '../../src/db/sql-files.ts';
import { RUN_DIR_ENV } from '../global-setup.ts';

/** Set by the global setup for the workers: the Postgres template's name. */
export const PG_TEMPLATE_ENV = 'PAYRECON_TEST_PG_TEMPLATE';

/** Templates hold the default schema; a test choosing another DATABASE_SCHEMA migrates its own. */
export const TEMPLATE_SCHEMA = loadConfig({ DATABASE_URL: '' }).DATABASE_SCHEMA;

/** Changes when any migration file (or the schema they go into) changes, so a stale template is never used. */
export function migrationsHash(dir: string = SQL_DIR): string {
  const h = createHash('sha256').update(`schema:${TEMPLATE_SCHEMA}\n`);
  for (const file of listMigrationFiles(dir)) h.update(`${file}\n${readMigrationFile(file, dir)}\n`);
  return h.digest('hex').slice(0, 16);
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Any constant: one template build at a time on this server, across concurrent runs. */
const BUILD_LOCK_KEY = 2_602_600_026;

/** The migrated template database for this sql/, built when absent; returns its name. */
export async function ensurePostgresTemplate(adminUrl: string): Promise<string> {
  const name = `payrecon_tpl_${migrationsHash()}`;
  return withClient(adminUrl, async (c) => {
    await c.query('select pg_advisory_lock($1)', [BUILD_LOCK_KEY]);
    try {
      const found = await c.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount) return name;
      // A build interrupted earlier left this behind, never renamed: start it again.
      const building = `${name}_build`;
      await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${building}`);
      const u = new URL(adminUrl);
      u.pathname = `/${building}`;
      const db = await openDatabase(loadConfig({ DATABASE_URL: u.toString() }), { applicationName: building });
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
      await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      await c.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
      return name;
    } finally {
      await c.query('select pg_advisory_unlock($1)', [BUILD_LOCK_KEY]);
    }
  });
}

let pgliteTemplate: Promise<string> | undefined;

/** A migrated PGlite data directory for this run (per process when no global setup named a run directory). */
export function pgliteTemplateDir(): Promise<string> {
  pgliteTemplate ??= buildOrAwaitPglite(process.env[RUN_DIR_ENV] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-tpl-')));
  return pgliteTemplate;
}

async function buildOrAwaitPglite(root: string): Promise<string> {
  const dir = path.join(root, `pglite-template-${migrationsHash()}`);
  const lock = `${dir}.lock`;
  for (;;) {
    // Complete once it exists: it is renamed into place only after migrating and closing.
    if (fs.existsSync(dir)) return dir;
    if (takeLock(lock)) {
      try {
        if (!fs.existsSync(dir)) await buildPglite(dir);
        return dir;
      } finally {
        fs.rmSync(lock, { force: true });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** O_EXCL with our pid; a lock whose process has died (a killed worker) is removed so another can build. */
function takeLock(lock: string): boolean {
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let holder: string;
  try {
    holder = fs.readFileSync(lock, 'utf8');
  } catch {
    return false; // released meanwhile: look again
  }
  // Empty for a moment between its creation and the write: not stale.
  const pid = holder ? Number(holder) : NaN;
  if (Number.isInteger(pid) && !alive(pid)) fs.rmSync(lock, { force: true });
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function buildPglite(dir: string): Promise<void> {
  const building = `${dir}.build-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  const db = await openDatabase(loadConfig({ DATABASE_URL: '', PGLITE_DIR: building }));
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  try {
    fs.renameSync(building, dir);
  } catch (err) {
    // Another worker finished first (only after taking over a lock it wrongly thought stale): use its copy.
    fs.rmSync(building, { recursive: true, force: true });
    if (!fs.existsSync(dir)) throw err;
  }
}

/** Copies the migrated PGlite template into an empty directory (without the template's process lock, if any). */
export async function copyPgliteTemplate(to: string): Promise<void> {
  const from = await pgliteTemplateDir();
  fs.cpSync(from, to, { recursive: true, filter: (src) => path.basename(src) !== LOCK_FILE });
}
