import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connect.ts';
import { assertMigrated, migrate, NotMigratedError, pendingMigrations } from '../src/db/migrate.ts';
import { listMigrationFiles } from '../src/db/sql-files.ts';
import { availableEngines, createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';

const toDrop: TestDatabase[] = [];
afterAll(async () => {
  for (const t of toDrop) await t.drop();
});

describe.each(availableEngines)('migrations on %s', (engine) => {
  it('refuses an unmigrated database, then applies every file into the schema once', async () => {
    const t = await createTestDatabase('migrate', { engine, migrate: false });
    toDrop.push(t);
    const files = listMigrationFiles();
    expect(files[0]).toBe('001_orders_and_runs.sql');

    await expect(assertMigrated(t.db)).rejects.toThrow(NotMigratedError);
    await expect(assertMigrated(t.db)).rejects.toThrow(/run `payrecon migrate`/);
    expect(await pendingMigrations(t.db)).toEqual(files);

    expect(await migrate(t.db)).toEqual({ applied: files });
    expect(await migrate(t.db)).toEqual({ applied: [] });
    await assertMigrated(t.db);

    const tables = await t.db.knex
      .select('table_name')
      .from('information_schema.tables')
      .where({ table_schema: 'payrecon' })
      .orderBy('table_name');
    expect(tables.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['knex_migrations', 'payment_orders', 'payout_orders', 'recon_items', 'job_runs', 'webhook_events']),
    );
    const inPublic = await t.db.knex('information_schema.tables').where({ table_schema: 'public' }).count('* as n');
    expect(inPublic[0].n).toBe('0');
  });

  it('returns numeric as exact strings, int8 as strings and timestamptz as Date', async () => {
    const t = await createTestDatabase('types', { engine });
    toDrop.push(t);
    const r = await t.db.knex.raw(
      `select 12345678901234.56::numeric n, 0.1::numeric p, 9007199254740993::int8 b, now() ts, 7::int4 i, array[1.10]::numeric[] na`,
    );
    expect(r.rows[0]).toMatchObject({ n: '12345678901234.56', p: '0.1', b: '9007199254740993', i: 7, na: ['1.10'] });
    expect(r.rows[0].ts).toBeInstanceOf(Date);
  });
});

describe('concurrent migrate', () => {
  it.skipIf(requiresServer('two pools migrating the same database at once'))(
    'two processes migrating at once both succeed, exactly one applies',
    async () => {
      const t = await createTestDatabase('concurrent', { engine: 'postgres', migrate: false });
      toDrop.push(t);
      const a = await openDatabase(t.config, { poolMax: 2 });
      const b = await openDatabase(t.config, { poolMax: 2 });
      try {
        const results = await Promise.all([migrate(a), migrate(b), migrate(t.db)]);
        const applied = results.map((r) => r.applied.length).sort();
        expect(applied).toEqual([0, 0, listMigrationFiles().length]);
        await assertMigrated(a);
      } finally {
        await a.close();
        await b.close();
      }
    },
  );
});
