// The report date's lock, both ways it is taken: by the engine before a writer's snapshot
// (withReportDateLock) and inside a caller's transaction (lockReportDate). They must exclude each other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockReportDate, withReportDateLock } from '../src/db/reports.ts';
import { waitFor } from './helpers/cli.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const DAY = '2024-05-01';

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe.each(availableEngines)('the report date lock on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`report_lock_${engine}`, { engine });
  });
  afterAll(() => t?.drop());

  /** Whether some session waits for an advisory lock (Postgres: the lock table says so). */
  const someoneWaits = async () => {
    const res = await t.db.knex.raw(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    return res.rows[0].n > 0;
  };

  it('withReportDateLock: a second writer of the date starts only after the first is done; another date does not wait', async () => {
    const events: string[] = [];
    const release = gate();
    const started = gate();
    const first = withReportDateLock(t.db, DAY, async () => {
      events.push('first in');
      started.open();
      await release.opened;
      events.push('first out');
    });
    await started.opened;
    const second = withReportDateLock(t.db, DAY, async () => {
      events.push('second in');
    });
    expect(await withReportDateLock(t.db, '2024-05-02', async () => 'other date')).toBe('other date');
    release.open();
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
  });

  it.runIf(engine === 'postgres')('waits for a transaction holding lockReportDate, until it commits', async () => {
    const events: string[] = [];
    const writer = await t.db.knex.transaction();
    let waiting: Promise<void> | undefined;
    try {
      await lockReportDate(writer, DAY);
      waiting = withReportDateLock(t.db, DAY, async () => {
        events.push('engine in');
      });
      await waitFor(someoneWaits);
      events.push('writer commits');
      await writer.commit();
    } catch (err) {
      await writer.rollback();
      throw err;
    }
    await waiting;
    expect(events).toEqual(['writer commits', 'engine in']);
  });

  it.runIf(engine === 'postgres')('lockReportDate in a transaction waits while the engine holds the date', async () => {
    const events: string[] = [];
    const release = gate();
    const held = gate();
    const holder = withReportDateLock(t.db, DAY, async () => {
      held.open();
      await release.opened;
      events.push('engine out');
    });
    await held.opened;
    const inTx = t.db.knex.transaction(async (tx) => {
      await lockReportDate(tx, DAY);
      events.push('transaction in');
    });
    await waitFor(someoneWaits);
    release.open();
    await Promise.all([holder, inTx]);
    expect(events).toEqual(['engine out', 'transaction in']);
  });
});
