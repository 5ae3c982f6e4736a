import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/connect.ts';
import { accountLockName, withJobLock } from '../src/db/locks.ts';
import { findLockHolder } from '../src/db/lock-holder.ts';
import { availableEngines, createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';

describe.each(availableEngines)('job lock on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`locks_${engine}`, { engine });
  });
  afterAll(() => t?.drop());

  it('refuses a second run of the same job while the first holds it; other jobs run', async () => {
    const outer = await withJobLock(t.db, 'reconcile', async () => {
      const inner = await withJobLock(t.db, 'reconcile', async () => 'ran');
      const other = await withJobLock(t.db, 'snapshot', async () => 'ran');
      // The run itself keeps using the pool while the lock is held.
      const [{ n }] = await t.db.knex('payment_orders').count('* as n');
      return { inner, other, n };
    });
    expect(outer).toEqual({ acquired: true, result: { inner: { acquired: false }, other: { acquired: true, result: 'ran' }, n: '0' } });
    expect(await withJobLock(t.db, 'reconcile', async () => 2)).toEqual({ acquired: true, result: 2 });
  });

  it('releases the lock when the run throws', async () => {
    await expect(
      withJobLock(t.db, 'report', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await withJobLock(t.db, 'report', async () => 'again')).toEqual({ acquired: true, result: 'again' });
  });
});

describe('job lock across processes', () => {
  let t: TestDatabase;
  let other: Db;
  beforeAll(async () => {
    if (requiresServer('a second connection pool stands in for a second process')) return;
    t = await createTestDatabase('locks_xproc', { engine: 'postgres' });
    other = await openDatabase(t.config, { poolMax: 2 });
  });
  afterAll(async () => {
    await other?.close();
    await t?.drop();
  });

  it.skipIf(requiresServer('a second connection pool stands in for a second process'))(
    'a lock held by one pool refuses the other until released, also after a throw',
    async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const first = withJobLock(t.db, 'reconcile', async () => {
        started();
        await held;
        throw new Error('crashed');
      });
      await running;
      expect(await withJobLock(other, 'reconcile', async () => 'second')).toEqual({ acquired: false });
      release();
      await expect(first).rejects.toThrow('crashed');
      expect(await withJobLock(other, 'reconcile', async () => 'second')).toEqual({ acquired: true, result: 'second' });
      // Both pools are still usable: no connection was leaked holding a lock. Only this test's database
      // counts: other databases on the server (parallel tests, benchmarks) hold advisory locks of their own.
      const sessions = await t.db.knex.raw(
        `select count(*) as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
      );
      expect(sessions.rows[0].n).toBe('0');
    },
  );

  it.skipIf(requiresServer('a second connection pool stands in for a second process'))(
    "one account's lock held by one pool leaves another account's free to the other pool, and names its holder",
    async () => {
      const seen = await withJobLock(t.db, accountLockName('reconcile', 'in-main'), async () => ({
        sameAccount: await withJobLock(other, accountLockName('reconcile', 'in-main'), async () => 'second'),
        otherAccount: await withJobLock(other, accountLockName('reconcile', 'ng-brand'), async () => 'second'),
        // The one-account name is another lock again: a deployment that grew accounts never waits on it.
        unnamed: await withJobLock(other, accountLockName('reconcile', undefined), async () => 'second'),
        holder: (await findLockHolder(other, 'reconcile', 'in-main')).sessionPid !== null,
        notHolder: (await findLockHolder(other, 'reconcile', 'ng-brand')).sessionPid,
      }));
      expect(seen).toEqual({
        acquired: true,
        result: {
          sameAccount: { acquired: false },
          otherAccount: { acquired: true, result: 'second' },
          unnamed: { acquired: true, result: 'second' },
          holder: true,
          notHolder: null,
        },
      });
    },
  );

  it.skipIf(requiresServer("terminating the lock's session needs a Postgres server"))(
    "stillHeld() asks the lock's own connection: true while its session lives, false at once after it was terminated",
    async () => {
      const seen = await withJobLock(t.db, 'reconcile', async (lock) => {
        const before = await lock.stillHeld();
        const { sessionPid } = await findLockHolder(t.db, 'reconcile');
        await other.knex.raw('select pg_terminate_backend(?)', [sessionPid]);
        // No waiting for the connection's own 'end' event: the question is asked of the connection itself.
        return { before, after: await lock.stillHeld() };
      });
      expect(seen).toEqual({ acquired: true, result: { before: true, after: false } });
      // The terminated session took its lock with it.
      expect(await withJobLock(other, 'reconcile', async () => 'free')).toEqual({ acquired: true, result: 'free' });
    },
  );
});
