import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

/**
 * recon_open (migration 031): one row per order whose newest check left it open, kept by a trigger on
 * every insert of checks, so the report's lookback finds open orders without reading superseded checks.
 */
const toDrop: TestDatabase[] = [];
afterAll(async () => {
  for (const t of toDrop) await t.drop();
});

describe('recon_open', () => {
  async function world(name: string) {
    const t = await createTestDatabase(name);
    toDrop.push(t);
    const run = (await t.db.knex.raw(`INSERT INTO job_runs (job) VALUES ('reconcile') RETURNING id::text AS id`)) as {
      rows: { id: string }[];
    };
    const runId = run.rows[0].id;
    /** One statement of checks: [order id, verdict, minutes past 10:00]. */
    const check = (rows: Array<[number, string, number]>, direction = 'payment') =>
      t.db.knex.raw(
        `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                  local_status, local_category, local_amount, verdict)
         SELECT ?::bigint, ?, o, 'm' || o, 't' || o, 'INR', 'BANK', '2026-11-01T10:00:00Z'::timestamptz + m * interval '1 minute',
                'Success', 'success', 10, v
           FROM unnest(?::bigint[], ?::text[], ?::int[]) AS x(o, v, m)
         ON CONFLICT DO NOTHING`,
        [runId, direction, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
      );
    // Each statement is a new run: (run, direction, order) is unique in recon_items.
    const nextRun = async () => {
      const r = (await t.db.knex.raw(`INSERT INTO job_runs (job) VALUES ('reconcile') RETURNING id::text AS id`)) as {
        rows: { id: string }[];
      };
      return r.rows[0].id;
    };
    const open = async () =>
      ((await t.db.knex.raw(`SELECT direction, order_id::int AS id FROM recon_open ORDER BY direction, order_id`)) as { rows: unknown[] })
        .rows;
    return { t, check, nextRun, open, runId };
  }

  it('holds orders whose newest check is pending, mismatch or error, and none whose newest check closed them', async () => {
    const w = await world('recon-open-verdicts');
    // Order 1: pending four times, then matched. 2: pending then mismatch. 3: error. 4: mismatch then resolved.
    await w.check([
      [1, 'pending', 1],
      [2, 'pending', 1],
      [3, 'error', 1],
      [4, 'mismatch', 1],
    ]);
    for (let i = 2; i <= 4; i++) {
      const runId = await w.nextRun();
      await w.t.db.knex.raw(
        `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                  local_status, local_category, local_amount, verdict)
         VALUES (?::bigint, 'payment', 1, 'm1', 't1', 'INR', 'BANK', '2026-11-01T10:00:00Z'::timestamptz + ? * interval '1 minute', 'Success', 'success', 10, 'pending')`,
        [runId, i],
      );
    }
    expect(await w.open()).toEqual([
      { direction: 'payment', id: 1 },
      { direction: 'payment', id: 2 },
      { direction: 'payment', id: 3 },
      { direction: 'payment', id: 4 },
    ]);
    const later = await w.nextRun();
    await w.t.db.knex.raw(
      `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                local_status, local_category, local_amount, verdict)
       SELECT ?::bigint, 'payment', o, 'm' || o, 't' || o, 'INR', 'BANK', '2026-11-01T11:00:00Z', 'Success', 'success', 10, v
         FROM unnest('{1,2,4}'::bigint[], '{matched,mismatch,resolved}'::text[]) AS x(o, v)`,
      [later],
    );
    expect(await w.open()).toEqual([
      { direction: 'payment', id: 2 },
      { direction: 'payment', id: 3 },
    ]);
  });

  it('an older check arriving after a newer one does not undo it; directions are apart', async () => {
    const w = await world('recon-open-order');
    await w.check([[7, 'mismatch', 30]]);
    // A closing check older than the open one leaves the order open.
    const older = await w.nextRun();
    await w.t.db.knex.raw(
      `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                local_status, local_category, local_amount, verdict)
       VALUES (?::bigint, 'payment', 7, 'm7', 't7', 'INR', 'BANK', '2026-11-01T10:05:00Z', 'Success', 'success', 10, 'matched'),
              (?::bigint, 'payout', 7, 'm7', 't7', 'INR', 'BANK', '2026-11-01T10:05:00Z', 'Success', 'success', 10, 'pending')`,
      [older, older],
    );
    expect(await w.open()).toEqual([
      { direction: 'payment', id: 7 },
      { direction: 'payout', id: 7 },
    ]);
  });
});
