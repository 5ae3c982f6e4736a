/**
 * Throw-away databases for tests, one per call, on whichever engine is available:
 * a real Postgres at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) gets a
 * fresh database that drop() removes WITH (FORCE); without one, an embedded PGlite in a temp dir.
 * TEST_DB_ENGINE=pglite forces PGlite even when a server answers.
 *
 *   const t = await createTestDatabase('orders');   // migrated: a copy of a template migrated once per run
 *   afterAll(() => t.drop());
 *   it.skipIf(requiresServer('two processes take the lock'))('...', ...)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { openDatabase, type Db } from '../../src/db/connect.ts';
import type { EngineName } from '../../src/db/engine/engine.ts';
import { migrate } from '../../src/db/migrate.ts';
import { copyPgliteTemplate, PG_TEMPLATE_ENV, TEMPLATE_SCHEMA } from './db-template.ts';
import { skipping } from './skips.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type Engine = EngineName;

export interface TestDatabase {
  db: Db;
  /** A config pointing at this database (DATABASE_URL for Postgres, PGLITE_DIR for PGlite). */
  config: Config;
  /** The database URL (Postgres only). */
  url?: string;
  engine: Engine;
  /** Closes db and removes the database (or the PGlite directory). Safe to call twice. */
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Force an engine; 'postgres' throws when no server answers. Default: Postgres when available. */
  engine?: Engine;
  /** Apply sql/ migrations (default true); false gives an empty database, for tests of migrating itself. */
  migrate?: boolean;
  /**
   * Migrated databases are copies of a template migrated once per run (db-template.ts), default true;
   * false runs migrate() on this database instead.
   */
  fromTemplate?: boolean;
  /** Extra environment merged into the config (e.g. { RECON_BATCH_SIZE: '10' }). */
  env?: Record<string, string>;
}

let probed: Promise<boolean> | undefined;

/** Whether a Postgres answers at TEST_DATABASE_URL (2 s connect timeout, asked once per process). */
export function probeServer(): Promise<boolean> {
  probed ??= (async () => {
    if (process.env.TEST_DB_ENGINE === 'pglite') return false;
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return probed;
}

/** True when a Postgres server is available to this test run. */
export const hasServer: boolean = await probeServer();

/** For it.skipIf(): true (skip) without a server, printing why once per reason and counting it (helpers/skips.ts); under CI=true, throws. */
export function requiresServer(reason: string): boolean {
  if (hasServer) return false;
  const why =
    process.env.TEST_DB_ENGINE === 'pglite' ? 'TEST_DB_ENGINE=pglite' : `no Postgres at ${TEST_DATABASE_URL}; set TEST_DATABASE_URL`;
  return skipping(why, reason);
}

/** The engines that can run here: both with a server, PGlite alone without. */
export const availableEngines: Engine[] = hasServer ? ['postgres', 'pglite'] : ['pglite'];

/**
 * Tests check orders created a moment before, so a test database's configuration checks them at once
 * and brackets every open order at a snapshot, unless a test sets these itself: the production delays
 * (RECON_FIRST_CHECK_*, SNAPSHOT_OPEN_CHECK=due) have tests of their own (reconcile-first-check.test.ts).
 */
export const CHECK_AT_ONCE_ENV: Readonly<Record<string, string>> = {
  RECON_FIRST_CHECK_PAYMENT: '0',
  RECON_FIRST_CHECK_PAYOUT: '0',
  SNAPSHOT_OPEN_CHECK: 'all',
};

export async function createTestDatabase(name = 'db', options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const engine = options.engine ?? (hasServer ? 'postgres' : 'pglite');
  if (engine === 'postgres' && !hasServer) throw new Error(`no Postgres at ${TEST_DATABASE_URL}`);
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  const dbName = `payrecon_t_${slug}_${randomBytes(4).toString('hex')}`;

  const migrated = options.migrate !== false;
  const wantsTemplate = migrated && options.fromTemplate !== false && (options.env?.DATABASE_SCHEMA || TEMPLATE_SCHEMA) === TEMPLATE_SCHEMA;
  let cloned: boolean;
  let config: Config;
  let url: string | undefined;
  let cleanup: () => Promise<void>;
  if (engine === 'postgres') {
    // Named by the global setup; absent when a test runs without it (then migrate below).
    const template = wantsTemplate ? process.env[PG_TEMPLATE_ENV] : undefined;
    await admin(template ? `CREATE DATABASE ${dbName} TEMPLATE ${template}` : `CREATE DATABASE ${dbName}`);
    cloned = template !== undefined;
    const u = new URL(TEST_DATABASE_URL);
    u.pathname = `/${dbName}`;
    url = u.toString();
    config = loadConfig({ ...CHECK_AT_ONCE_ENV, ...options.env, DATABASE_URL: url });
    cleanup = () => admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${dbName}-`));
    if (wantsTemplate) await copyPgliteTemplate(dir);
    cloned = wantsTemplate;
    config = loadConfig({ ...CHECK_AT_ONCE_ENV, ...options.env, DATABASE_URL: '', PGLITE_DIR: dir });
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }

  const db = await openDatabase(config, { applicationName: dbName });
  if (migrated && !cloned) await migrate(db);
  // A copy of the template carries the template's installation id (made once, at migration): each test
  // database is its own installation, as each migrated database is, or the REPORT_DIR guard would take
  // two of them for one.
  if (cloned) await db.knex.raw(`UPDATE ${TEMPLATE_SCHEMA}.installation SET id = gen_random_uuid()`);
  let dropped = false;
  return {
    db,
    config,
    url,
    engine,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await db.close().catch(() => undefined);
      await cleanup();
    },
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
