// The sample CSVs docs/guides/getting-started.md imports: every row goes in, every status is known.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { importOrders } from '../src/import/import.ts';
import { createStatusMapper } from '../src/domain/status.ts';
import { ROOT } from './helpers/cli.ts';

describe('examples/payments.csv and examples/payouts.csv', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('examples_csv');
  });
  afterAll(() => t?.drop());

  it.each([
    ['payments.csv', 'payment', 5],
    ['payouts.csv', 'payout', 3],
  ] as const)('%s imports whole, with no unknown status', async (file, kind, rows) => {
    const r = await importOrders(t.db.knex, fs.createReadStream(path.join(ROOT, 'examples', file)), {
      kind,
      statusOf: createStatusMapper(),
    });
    expect(r).toEqual({ kind, rows, inserted: rows, rejected: [], unknownStatuses: {} });
  });
});
