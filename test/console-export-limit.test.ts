/**
 * Issue 39: export and upload agree on limits. The queue says, where the export is offered, that an
 * upload takes at most IMPORT_MAX_ROWS rows, when the filter matches more; below it, nothing to say.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import { IMPORT_MAX_ROWS } from '../src/cases/import-file.ts';

let t: TestDatabase;
let app: FastifyInstance;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
const n = IMPORT_MAX_ROWS + 1;

beforeAll(async () => {
  t = await createTestDatabase('console_export_limit');
  await seedOpenCases(t.db.knex, n, clock.now());
  await addUsers(t, clock, { vera: 'viewer' });
  app = await buildTestConsole(t, clock);
}, 180_000);
afterAll(async () => {
  await app?.close();
  await t?.drop();
});

describe('the export says the upload’s limit', () => {
  it('over the limit: the export link says an upload takes at most the limit; a narrower filter does not', async () => {
    const vera = new Agent(app, '10.2.2.1');
    await vera.login('vera');
    const all = await vera.get('/cases');
    const limit = IMPORT_MAX_ROWS.toLocaleString('en-US');
    expect(all.body).toContain(`export all ${n.toLocaleString('en-US')} as a workbook`);
    expect(all.body).toContain(`an upload takes at most ${limit} rows`);
    const fee = await vera.get('/cases?code=FEE');
    expect(fee.body).not.toContain('an upload takes at most');
  });
});
