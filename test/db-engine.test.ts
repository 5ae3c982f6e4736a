import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connect.ts';
import { DatabaseBusyError } from '../src/db/engine/pglite-dir-lock.ts';
import type { EngineName } from '../src/db/engine/engine.ts';
import { rowsOf } from '../src/db/row.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

/** What each engine answers where the two differ; everything else below holds on both. */
const DIFFERS: Record<
  EngineName,
  {
    /** The request schedule lives in the database, shared by processes (else in this process). */
    sharedSchedule: boolean;
    /** lockSession names the database session holding a lock. */
    namesLockSession: boolean;
    /** A second process on the same database: shares its locks, or is refused the database. */
    secondProcess: 'shares locks' | 'refused';
  }
> = {
  postgres: { sharedSchedule: true, namesLockSession: true, secondProcess: 'shares locks' },
  pglite: { sharedSchedule: false, namesLockSession: false, secondProcess: 'refused' },
};

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe.each(availableEngines)('the %s engine, through its adapter', (engine) => {
  const expected = DIFFERS[engine];
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`engine_${engine}`, { engine });
  });
  afterAll(() => t?.drop());

  it('is the engine the database was opened with', () => {
    expect(t.db.engine.name).toBe(engine);
  });

  it('tryLock: one holder of a name at a time, other names free, free again after fn, also after a throw', async () => {
    const outer = await t.db.engine.tryLock('engine-test:a', async () => ({
      same: await t.db.engine.tryLock('engine-test:a', async () => 'ran'),
      other: await t.db.engine.tryLock('engine-test:b', async () => 'ran'),
    }));
    expect(outer).toEqual({ acquired: true, result: { same: { acquired: false }, other: { acquired: true, result: 'ran' } } });
    await expect(
      t.db.engine.tryLock('engine-test:a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await t.db.engine.tryLock('engine-test:a', async () => 'again')).toEqual({ acquired: true, result: 'again' });
  });

  it('waitLock: a second holder runs only after the first is done; tryLock is refused meanwhile', async () => {
    const events: string[] = [];
    const release = gate();
    const started = gate();
    const first = t.db.engine.waitLock('engine-test:w', async () => {
      events.push('first in');
      started.open();
      await release.opened;
      events.push('first out');
    });
    await started.opened;
    const second = t.db.engine.waitLock('engine-test:w', async () => {
      events.push('second in');
    });
    expect(await t.db.engine.tryLock('engine-test:w', async () => 'ran')).toEqual({ acquired: false });
    release.open();
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    expect(await t.db.engine.tryLock('engine-test:w', async () => 'ran')).toEqual({ acquired: true, result: 'ran' });
  });

  it('waitLock: released when fn throws', async () => {
    await expect(
      t.db.engine.waitLock('engine-test:t', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await t.db.engine.waitLock('engine-test:t', async () => 'next')).toBe('next');
  });

  it('lockSession: names the session holding a lock where the engine can tell, null when free', async () => {
    expect(await t.db.engine.lockSession('engine-test:s')).toBeNull();
    const seen = await t.db.engine.tryLock('engine-test:s', () => t.db.engine.lockSession('engine-test:s'));
    if (expected.namesLockSession) {
      expect(seen.result).toEqual({ pid: expect.any(Number), application: expect.stringMatching(/^payrecon_t_engine_/) });
    } else {
      expect(seen.result).toBeNull();
    }
    expect(await t.db.engine.lockSession('engine-test:s')).toBeNull();
  });

  it('transactionLock: a second transaction taking the same lock goes on only after the first has ended', async () => {
    const events: string[] = [];
    const release = gate();
    const held = gate();
    const first = t.db.knex.transaction(async (tx) => {
      await t.db.engine.transactionLock(tx, 'engine-test:tx');
      events.push('first holds');
      held.open();
      await release.opened;
      events.push('first ends');
    });
    await held.opened;
    const second = t.db.knex.transaction(async (tx) => {
      await t.db.engine.transactionLock(tx, 'engine-test:tx');
      events.push('second holds');
    });
    if (engine === 'postgres') {
      // The second is seen waiting for the lock (another pool connection asks), not merely not started yet.
      while (!events.includes('second holds')) {
        const rows = rowsOf(await t.db.knex.raw(`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`));
        if (Number(rows[0].n) > 0) break;
        await new Promise((r) => setImmediate(r));
      }
    }
    release.open();
    await Promise.all([first, second]);
    expect(events).toEqual(['first holds', 'first ends', 'second holds']);
  });

  it('runScript: several statements in one call, inside the transaction it is given', async () => {
    const script = (n: number) => `SET search_path TO ${t.db.schema};
      CREATE TABLE IF NOT EXISTS engine_script (n int);
      INSERT INTO engine_script VALUES (${n});
      INSERT INTO engine_script VALUES (${n + 1});`;
    await t.db.engine.runScript(t.db.knex, script(1));
    await expect(
      t.db.knex.transaction(async (trx) => {
        await t.db.engine.runScript(trx, script(10));
        expect(await trx('engine_script').orderBy('n').pluck('n')).toEqual([1, 2, 10, 11]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await t.db.knex('engine_script').orderBy('n').pluck('n')).toEqual([1, 2]);
  });

  it('runScript: a question mark in a script arrives as written, not as a binding (sql/029 lost its regex to that)', async () => {
    await t.db.engine.runScript(
      t.db.knex,
      `SET search_path TO ${t.db.schema};
       CREATE TABLE engine_marks AS SELECT '12.5' ~ '^-?[0-9]+(\\.[0-9]+)?$' AS matched, 'why?' AS said;`,
    );
    expect(await t.db.knex('engine_marks').first()).toEqual({ matched: true, said: 'why?' });
  });

  it('slotStore: the shared schedule where processes share the database, none (in memory) where one process owns it', async () => {
    const store = t.db.engine.slotStore();
    if (!expected.sharedSchedule) {
      expect(store).toBeUndefined();
      return;
    }
    const req = { account: 'engine-test', want: 3, intervalMs: 10, horizonMs: 1000 };
    const a = await store!.reserve(req);
    const b = await t.db.engine.slotStore()!.reserve(req);
    expect(a.count).toBe(3);
    expect(b.count).toBe(3);
    // Two stores on one database share one schedule: the second's slots follow the first's.
    expect(b.firstSlotMs).toBeGreaterThanOrEqual(a.firstSlotMs + 30);
  });

  it('a second opening of the same database: shares its locks (Postgres) or is refused the database (PGlite)', async () => {
    if (expected.secondProcess === 'refused') {
      await expect(openDatabase(t.config)).rejects.toBeInstanceOf(DatabaseBusyError);
      return;
    }
    const other = await openDatabase(t.config, { poolMax: 2 });
    try {
      const fromOther = await t.db.engine.tryLock('engine-test:x', () => other.engine.tryLock('engine-test:x', async () => 'ran'));
      expect(fromOther).toEqual({ acquired: true, result: { acquired: false } });
      expect(await other.engine.tryLock('engine-test:x', async () => 'ran')).toEqual({ acquired: true, result: 'ran' });
    } finally {
      await other.close();
    }
  });
});
