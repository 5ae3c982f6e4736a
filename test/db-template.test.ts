/**
 * Issue 26: test databases are copies of one migrated template (test/helpers/db-template.ts), except
 * where a test asks for an empty one to migrate itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { pendingMigrations } from '../src/db/migrate.ts';
import { listMigrationFiles, SQL_DIR } from '../src/db/sql-files.ts';
import { ensurePostgresTemplate, migrationsHash, PG_TEMPLATE_ENV } from './helpers/db-template.ts';
import { availableEngines, createTestDatabase, requiresServer, TEST_DATABASE_URL, type TestDatabase } from './helpers/db.ts';

const toDrop: TestDatabase[] = [];
afterAll(async () => {
  for (const t of toDrop) await t.drop();
});

describe.each(availableEngines)('test databases on %s', (engine) => {
  it('migrated by default, independent of each other, and empty with migrate: false', async () => {
    const [a, b, empty] = await Promise.all([
      createTestDatabase('tpl_a', { engine }),
      createTestDatabase('tpl_b', { engine }),
      createTestDatabase('tpl_empty', { engine, migrate: false }),
    ]);
    toDrop.push(a, b, empty);
    expect(await pendingMigrations(a.db)).toEqual([]);
    expect(await pendingMigrations(b.db)).toEqual([]);
    expect(await pendingMigrations(empty.db)).toEqual(listMigrationFiles());

    await a.db
      .knex('payment_orders')
      .insert({ merchant_ref: 'm-1', transaction_ref: 't-1', currency: 'INR', method: 'UPI', amount: '1.00' });
    const count = async (t: TestDatabase) => (await t.db.knex('payment_orders').count<{ n: string }[]>('* as n'))[0].n;
    expect(await count(a)).toBe('1');
    expect(await count(b)).toBe('0');
  });

  it('a test choosing another schema gets its own migrations there', async () => {
    const t = await createTestDatabase('tpl_schema', { engine, env: { DATABASE_SCHEMA: 'payrecon_other' } });
    toDrop.push(t);
    expect(t.db.schema).toBe('payrecon_other');
    expect(await pendingMigrations(t.db)).toEqual([]);
  });
});

describe('the Postgres template', () => {
  it.skipIf(requiresServer('a template database on the server'))(
    'is named by the migrations, accepts no connections, and concurrent setups agree on it',
    async () => {
      const names = await Promise.all([1, 2, 3].map(() => ensurePostgresTemplate(TEST_DATABASE_URL)));
      expect(new Set(names)).toEqual(new Set([`payrecon_tpl_${migrationsHash()}`]));
      expect(process.env[PG_TEMPLATE_ENV]).toBe(names[0]);
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        const r = await client.query('select datistemplate, datallowconn from pg_database where datname = $1', [names[0]]);
        expect(r.rows).toEqual([{ datistemplate: true, datallowconn: false }]);
      } finally {
        await client.end();
      }
    },
  );
});

describe('migrationsHash', () => {
  it('changes when a migration file changes or is added, so a stale template is never cloned', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sql-'));
    fs.cpSync(SQL_DIR, dir, { recursive: true });
    const before = migrationsHash(dir);
    expect(before).toBe(migrationsHash());
    const first = listMigrationFiles(dir)[0];
    fs.appendFileSync(path.join(dir, first), '\n-- edited\n');
    const edited = migrationsHash(dir);
    expect(edited).not.toBe(before);
    fs.writeFileSync(path.join(dir, '999_next.sql'), 'select 1;\n');
    expect(migrationsHash(dir)).not.toBe(edited);
  });
});
