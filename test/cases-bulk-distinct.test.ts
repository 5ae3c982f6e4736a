/**
 * Issue 35, item 7: a bulk action naming one case 500 times acts on it once, writes one audit event,
 * and counts one case: the console's "N cases acknowledged" is the distinct cases changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import { actOnCases } from '../src/cases/bulk.ts';

describe('bulk action with a case repeated', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('h35_bulk_distinct');
    await seedOpenCases(t.db.knex, 2, new Date('2026-11-20T06:00:00Z'));
  });
  afterAll(() => t?.drop());

  it('acknowledges the case once, with one event, and counts it once', async () => {
    const [{ version }] = (await t.db.knex('cases').where({ id: 1 }).select('version')) as Array<{ version: number }>;
    const selected = [...Array.from({ length: 500 }, () => ({ id: '1', version })), { id: '2', version }];
    const out = await actOnCases(t.db, selected, { kind: 'acknowledge', actor: 'console:ana', note: '' }, new Date('2026-11-20T07:00:00Z'));
    expect(out.done.sort()).toEqual(['1', '2']);
    expect(out.refused).toEqual([]);
    const events = (await t.db.knex('case_events').where({ to_state: 'acknowledged' }).select('case_id')) as Array<{ case_id: string }>;
    expect(events.map((e) => String(e.case_id)).sort()).toEqual(['1', '2']);
  });
});
