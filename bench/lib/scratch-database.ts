import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A throw-away database on a bench's Postgres server: its name, its URL, and how to drop it. */
export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Runs one statement on the server's own database (CREATE/DROP DATABASE cannot run inside the one they name). */
async function onServer(server: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  await c.query(sql).finally(() => c.end());
}

/** Creates `<prefix>_<random hex>` on the server of `server` (a postgres:// URL); drop() removes it, with any session still in it. */
export async function createScratchDatabase(server: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await onServer(server, `CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => onServer(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
