// sql/040 (issue 43) on rows stored before it: the provider's status category and amount from the latest check,
// and the moment of its success: finalized_at for an order payrecon moved from open (a check or a confirmed
// notification), else the first check that saw the provider's success. Run as the migrator runs a file, on a
// database put back to before it. Both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { listMigrationFiles, readMigrationFile } from '../src/db/sql-files.ts';

const T = (h: number) => new Date(Date.UTC(2026, 2, 1, h)).toISOString();

const BEFORE_040 = `
ALTER TABLE payment_orders DROP COLUMN provider_category, DROP COLUMN provider_amount, DROP COLUMN provider_success_at;
ALTER TABLE payout_orders DROP COLUMN provider_category, DROP COLUMN provider_amount, DROP COLUMN provider_success_at;
ALTER TABLE balance_checks DROP COLUMN rejudged_at, DROP COLUMN first_drift;`;

const LEGACY = `
INSERT INTO job_runs (id, job, started_at, status) VALUES (1, 'reconcile', '${T(0)}', 'completed'), (2, 'reconcile', '${T(0)}', 'completed'),
  (3, 'reconcile', '${T(0)}', 'completed');
INSERT INTO payment_orders (id, merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, status, status_category,
  created_at, open_seen_at, finalized_at) VALUES
  (1, 'resolved-by-check', 't-1', 'INR', 'UPI', 100, 100, 1, 'Success', 'success', '${T(1)}', '${T(2)}', '${T(3)}'),
  (2, 'imported-success-agreed', 't-2', 'INR', 'UPI', 200, 200, 2, 'Success', 'success', '${T(1)}', NULL, '${T(1)}'),
  (3, 'imported-success-kept-pending', 't-3', 'INR', 'UPI', 300, 300, 3, 'Success', 'success', '${T(1)}', NULL, '${T(1)}'),
  (4, 'imported-failed-settled', 't-4', 'INR', 'UPI', 400, NULL, NULL, 'Failed', 'failed', '${T(1)}', NULL, '${T(1)}'),
  (5, 'confirmed-notification', 't-5', 'INR', 'UPI', 500, 500, 5, 'Success', 'success', '${T(1)}', NULL, '${T(4)}');
INSERT INTO payout_orders (id, merchant_ref, transaction_ref, currency, method, amount, fee, status, status_category,
  created_at, finalized_at) VALUES
  (1, 'never-checked', 't-6', 'INR', 'IMPS', 600, 6, 'Success', 'success', '${T(1)}', '${T(1)}');
INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
  local_status, local_category, local_amount, provider_status, provider_category, provider_amount, verdict, codes, reason) VALUES
  (1, 'payment', 1, 'resolved-by-check', 't-1', 'INR', 'UPI', '${T(3)}', 'Pending', 'pending', 100, 'Success', 'success', 100, 'resolved', '{}', ''),
  (1, 'payment', 2, 'imported-success-agreed', 't-2', 'INR', 'UPI', '${T(5)}', 'Success', 'success', 200, 'Pending', 'pending', 200, 'mismatch', '{STATUS}', ''),
  (2, 'payment', 2, 'imported-success-agreed', 't-2', 'INR', 'UPI', '${T(6)}', 'Success', 'success', 200, 'Success', 'success', 200, 'matched', '{}', ''),
  (3, 'payment', 2, 'imported-success-agreed', 't-2', 'INR', 'UPI', '${T(7)}', 'Success', 'success', 200, 'Success', 'success', 200, 'matched', '{}', ''),
  (1, 'payment', 3, 'imported-success-kept-pending', 't-3', 'INR', 'UPI', '${T(5)}', 'Success', 'success', 300, 'Pending', 'pending', 300, 'mismatch', '{STATUS}', ''),
  (1, 'payment', 4, 'imported-failed-settled', 't-4', 'INR', 'UPI', '${T(8)}', 'Failed', 'failed', 400, 'Success', 'success', 400, 'mismatch', '{STATUS}', '');
INSERT INTO webhook_events (direction, dedupe_key, transaction_ref, status, raw_body, headers, received_at, confirmation, confirmed_at)
  VALUES ('payment', 'k-5', 't-5', 'Success', '{}', '{}', '${T(4)}', 'confirmed', '${T(4)}');`;

describe.each(availableEngines)('sql/040 on rows stored before it (%s)', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`migration_040_${engine}`, { engine });
  });
  afterAll(() => t?.drop());

  it('fills in the provider’s word from the latest check, and the moment of its success', async () => {
    const run = (sql: string) => t.db.engine.runScript(t.db.knex, `SET search_path TO ${t.db.schema};\n${sql}`);
    await run(BEFORE_040);
    // sql/037's indexes, as they stood before 040 dropped them.
    await run(readMigrationFile(listMigrationFiles().find((f) => f.startsWith('037_'))!));
    await run(LEGACY);
    await run(readMigrationFile(listMigrationFiles().find((f) => f.startsWith('040_'))!));

    const rows = async (table: string) =>
      (
        await t.db.knex.raw(
          `SELECT merchant_ref, provider_category, provider_amount::text AS provider_amount, provider_success_at FROM ${table} ORDER BY id`,
        )
      ).rows.map(
        (r: {
          merchant_ref: string;
          provider_category: string | null;
          provider_amount: string | null;
          provider_success_at: Date | null;
        }) => ({
          ...r,
          provider_success_at: r.provider_success_at && new Date(r.provider_success_at).toISOString(),
        }),
      );
    expect(await rows('payment_orders')).toEqual([
      { merchant_ref: 'resolved-by-check', provider_category: 'success', provider_amount: '100', provider_success_at: T(3) },
      // Recorded final at import: the provider's word came with the first check that saw its success.
      { merchant_ref: 'imported-success-agreed', provider_category: 'success', provider_amount: '200', provider_success_at: T(6) },
      { merchant_ref: 'imported-success-kept-pending', provider_category: 'pending', provider_amount: '300', provider_success_at: null },
      { merchant_ref: 'imported-failed-settled', provider_category: 'success', provider_amount: '400', provider_success_at: T(8) },
      // No check, a confirmed notification: finalized_at was the provider's word.
      { merchant_ref: 'confirmed-notification', provider_category: 'success', provider_amount: null, provider_success_at: T(4) },
    ]);
    expect(await rows('payout_orders')).toEqual([
      { merchant_ref: 'never-checked', provider_category: null, provider_amount: null, provider_success_at: null },
    ]);
  });
});
