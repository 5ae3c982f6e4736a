import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's sql/ directory, wherever the process was started from. */
export const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

const MIGRATION_FILE = /^\d{3}_[a-z0-9_]+\.sql$/;

/** Migration file names (e.g. "001_orders_and_runs.sql") in the order they apply. */
export function listMigrationFiles(dir: string = SQL_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort();
}

export function readMigrationFile(name: string, dir: string = SQL_DIR): string {
  return fs.readFileSync(`${dir}/${name}`, 'utf8');
}
