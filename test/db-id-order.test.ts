/**
 * Queries that return ids as text (`id::text AS id`) must still order by the number: a bare
 * `ORDER BY id` sorts by the text alias, so case #10 listed before #2 after a demo night.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { driftSubject, selectCases, unresolvedCaseAges } from '../src/db/cases.ts';
import { observeCaseNow } from '../src/cases/observe.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('id_order');
});
afterAll(() => t?.drop());

it('cases opened at the same moment list by id as numbers: 1, 2, …, 10, 11, 12', async () => {
  const at = new Date('2026-03-10T12:00:00Z');
  for (let hour = 0; hour < 12; hour++) {
    const from = new Date(at.getTime() + hour * 3_600_000);
    const to = new Date(from.getTime() + 3_600_000);
    const subject = {
      subject: driftSubject('NGN', from, to),
      code: 'BALANCE_DRIFT',
      currency: 'NGN',
      windowStart: from,
      windowEnd: to,
      occurredAt: at,
    };
    expect((await observeCaseNow(t.db, subject, { kind: 'finding' }, at, { note: `drift ${hour}` })).outcome).toBe('opened');
  }
  const ids = (await selectCases(t.db.knex, {})).map((c) => Number(c.id));
  expect(ids).toHaveLength(12);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect((await unresolvedCaseAges(t.db.knex, at)).length).toBe(12);
});
