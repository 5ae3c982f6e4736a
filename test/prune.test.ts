import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as losslessParse, isLosslessNumber } from 'lossless-json';
import { silentLogger } from '../src/log/logger.ts';
import { runPrune, type PruneOptions } from '../src/prune/run-prune.ts';
import { withJobLock } from '../src/db/locks.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { daysAgo, exists, rowCounts, world } from './helpers/prune-world.ts';

/**
 * Retention (`payrecon prune`) on real Postgres: what it removes, and each thing it must keep because an
 * open case, an unresolved alert or a recorded report version needs it, each as a test of its own.
 */
const NOW = new Date();
const CUTOFF = daysAgo(NOW, 400);
const OLD = daysAgo(NOW, 500);
const OLDER = daysAgo(NOW, 501);
const RECENT = daysAgo(NOW, 10);

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('prune', { engine: 'postgres' });
}, 60_000);
afterAll(() => t?.drop());

const prune = (over: Partial<PruneOptions> = {}) =>
  runPrune({
    db: t.db,
    logger: silentLogger,
    cutoff: CUTOFF,
    dryRun: false,
    batchSize: 5000,
    lockTimeoutMs: 2000,
    reportDir: t.config.REPORT_DIR,
    ...over,
  });

/** An old final order checked twice long ago (the first check superseded), and the run behind the checks. */
async function twiceChecked(direction: 'payment' | 'payout' = 'payment') {
  const w = world(t.db.knex);
  const order = await w.order(direction, OLDER);
  const first = await w.check(order, OLDER, 'pending');
  const run = await w.run('reconcile', OLD);
  const latest = await w.check(order, OLD, 'matched', run);
  return { w, run, order, first, latest };
}

describe.skipIf(requiresServer('prune runs on Postgres'))('payrecon prune', () => {
  it('removes superseded checks of final orders and keeps each order and its latest check', async () => {
    const { order, first, latest } = await twiceChecked('payout');
    await prune();
    expect(await exists(t.db.knex, 'recon_items', first)).toBe(false);
    expect(await exists(t.db.knex, 'recon_items', latest)).toBe(true);
    expect(await exists(t.db.knex, 'payout_orders', order.id)).toBe(true);
  });

  it('keeps the superseded checks of an order still open', async () => {
    const w = world(t.db.knex);
    const order = await w.order('payment', OLDER, 'pending');
    const first = await w.check(order, OLDER, 'pending');
    await w.check(order, OLD, 'pending');
    await prune();
    expect(await exists(t.db.knex, 'recon_items', first)).toBe(true);
  });

  it('keeps every check of an order with an open case', async () => {
    const { w, order, first } = await twiceChecked();
    await w.caseOf(order, OLD, 'open');
    await prune();
    expect(await exists(t.db.knex, 'recon_items', first)).toBe(true);
  });

  it('keeps every check of an order with an acknowledged case', async () => {
    const { w, order, first } = await twiceChecked();
    await w.caseOf(order, OLD, 'acknowledged');
    await prune();
    expect(await exists(t.db.knex, 'recon_items', first)).toBe(true);
  });

  it('keeps the check a recorded report version was built from, though a later check superseded it', async () => {
    const w = world(t.db.knex);
    const order = await w.order('payment', OLDER);
    const recorded = await w.check(order, OLDER, 'mismatch');
    await w.reportVersion('2020-01-01', new Date(OLDER.getTime() + 60_000), [order]);
    const before = await w.check(order, new Date(OLDER.getTime() + 30_000), 'mismatch');
    await w.check(order, OLD);
    await prune();
    // `before` was the latest when the version was written; `recorded` was superseded before it.
    expect(await exists(t.db.knex, 'recon_items', before)).toBe(true);
    expect(await exists(t.db.knex, 'recon_items', recorded)).toBe(false);
  });

  it('keeps the webhook payload of an order with an open case', async () => {
    const { w, order } = await twiceChecked();
    await w.caseOf(order, OLD, 'open');
    const event = await w.webhook(order, OLDER);
    await prune();
    expect(await exists(t.db.knex, 'webhook_events', event)).toBe(true);
  });

  it('keeps the webhook payload of a resolved case an unresolved alert still names', async () => {
    const { w, order } = await twiceChecked();
    const caseId = await w.caseOf(order, OLD, 'resolved');
    await w.alert({ at: OLD, resolvedAt: null, caseIds: [caseId] });
    const event = await w.webhook(order, OLDER);
    await prune();
    expect(await exists(t.db.knex, 'webhook_events', event)).toBe(true);
  });

  it('keeps the webhook payload of an order still open and one whose confirmation is pending', async () => {
    const w = world(t.db.knex);
    const open = await w.order('payment', OLDER, 'pending');
    const openEvent = await w.webhook(open, OLDER);
    const final = await w.order('payment', OLDER);
    const pendingEvent = await w.webhook(final, OLDER, 'pending');
    await prune();
    expect(await exists(t.db.knex, 'webhook_events', openEvent)).toBe(true);
    expect(await exists(t.db.knex, 'webhook_events', pendingEvent)).toBe(true);
  });

  it('removes old webhook payloads of final orders and of resolved cases no alert names', async () => {
    const { w, order } = await twiceChecked();
    await w.caseOf(order, OLD, 'resolved');
    const event = await w.webhook(order, OLDER);
    const recent = await w.webhook(order, RECENT);
    await prune();
    expect(await exists(t.db.knex, 'webhook_events', event)).toBe(false);
    expect(await exists(t.db.knex, 'webhook_events', recent)).toBe(true);
  });

  it('keeps an unresolved alert and the job run it refers to', async () => {
    const w = world(t.db.knex);
    const run = await w.run('snapshot', OLDER);
    await w.run('snapshot', RECENT);
    const alert = await w.alert({ at: OLDER, resolvedAt: null, runId: run });
    await prune();
    expect(await exists(t.db.knex, 'alerts', alert)).toBe(true);
    expect(await exists(t.db.knex, 'job_runs', run)).toBe(true);
  });

  it('removes an old resolved alert with its "resolved" message, then the run they referred to', async () => {
    const w = world(t.db.knex);
    const run = await w.run('bank-codes', OLDER);
    await w.run('bank-codes', RECENT);
    const alert = await w.alert({ at: OLDER, resolvedAt: OLD, runId: run });
    const message = await w.alert({ at: OLD, resolvedAt: OLD, resolves: alert });
    await prune();
    expect(await exists(t.db.knex, 'alerts', alert)).toBe(false);
    expect(await exists(t.db.knex, 'alerts', message)).toBe(false);
    expect(await exists(t.db.knex, 'job_runs', run)).toBe(false);
  });

  it('keeps a resolved alert whose "resolved" message is still to be sent', async () => {
    const w = world(t.db.knex);
    const alert = await w.alert({ at: OLDER, resolvedAt: OLD });
    await w.alert({ at: OLD, resolvedAt: OLD, resolves: alert, status: 'pending' });
    await prune();
    expect(await exists(t.db.knex, 'alerts', alert)).toBe(true);
  });

  it("keeps each job's latest run, however old, and runs that checks refer to", async () => {
    const w = world(t.db.knex);
    const only = await w.run('only-once', OLDER);
    const { run } = await twiceChecked();
    await w.run('reconcile', RECENT);
    await prune();
    expect(await exists(t.db.knex, 'job_runs', only)).toBe(true);
    expect(await exists(t.db.knex, 'job_runs', run)).toBe(true);
  });

  it('removes expired console sessions and old login failures, keeps recent ones', async () => {
    const w = world(t.db.knex);
    const user = await w.user();
    const ended = await w.session(user, OLDER, OLD);
    const idle = await w.session(user, OLD, null);
    const live = await w.session(user, RECENT, null);
    const oldFailure = await w.loginFailure(OLD);
    const newFailure = await w.loginFailure(RECENT);
    await prune();
    expect([await exists(t.db.knex, 'console_sessions', ended), await exists(t.db.knex, 'console_sessions', idle)]).toEqual([false, false]);
    expect(await exists(t.db.knex, 'console_sessions', live)).toBe(true);
    expect(await exists(t.db.knex, 'console_login_failures', oldFailure)).toBe(false);
    expect(await exists(t.db.knex, 'console_login_failures', newFailure)).toBe(true);
  });

  it('goes through a table in batches: many more rows than one batch are all removed', async () => {
    const w = world(t.db.knex);
    const order = await w.order('payment', OLDER);
    await t.db.knex.raw(
      `WITH runs AS (
         INSERT INTO job_runs (job, status, started_at, heartbeat_at, finished_at)
         SELECT 'reconcile', 'completed', ?::timestamptz, ?::timestamptz, ?::timestamptz FROM generate_series(1, 1200) RETURNING id)
       INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                local_status, local_category, local_amount, verdict)
       SELECT runs.id, 'payment', ?::bigint, 'm', ?, 'INR', 'UPI', ?::timestamptz + runs.id * interval '1 millisecond', 'Success', 'success', '1', 'matched'
         FROM runs`,
      [OLDER, OLDER, OLDER, order.id, order.transactionRef, OLDER],
    );
    await prune({ batchSize: 100 });
    const left = (await t.db.knex.raw(`SELECT count(*)::int AS n FROM recon_items WHERE order_id = ?::bigint AND direction = 'payment'`, [
      order.id,
    ])) as { rows: Array<{ n: number }> };
    expect(left.rows[0].n).toBe(1);
  });

  it('--dry-run changes nothing, and --json prints exactly one JSON object of the counts a prune then removes', async () => {
    const { w, order } = await twiceChecked();
    await w.webhook(order, OLDER);
    await w.loginFailure(OLD);
    const before = await rowCounts(t.db.knex);
    const env = { DATABASE_URL: t.url!, LOG_LEVEL: 'warn', RETENTION_DAYS: '400' };
    const dry = await runCli(['prune', '--dry-run', '--json'], env);
    expect(dry.code, dry.stderr).toBe(0);
    const counted = JSON.parse(dry.stdout) as { dryRun: boolean; tables: Record<string, number> };
    expect(counted.dryRun).toBe(true);
    const after = await rowCounts(t.db.knex);
    // The dry run's own job_runs row is the only change.
    expect({ ...after, job_runs: after.job_runs - 1 }).toEqual(before);
    expect(counted.tables.recon_items).toBeGreaterThan(0);
    expect(counted.tables.webhook_events).toBeGreaterThan(0);

    const real = await runCli(['prune', '--json'], env);
    expect(real.code, real.stderr).toBe(0);
    const removed = JSON.parse(real.stdout) as { tables: Record<string, number> };
    expect({ ...removed.tables, job_runs: 0 }).toEqual({ ...counted.tables, job_runs: 0 });
  });

  it('does not run while another prune holds the lock', async () => {
    const held = await withJobLock(t.db, 'prune', async () => (await prune()).status);
    expect(held).toEqual({ acquired: true, result: 'skipped' });
  });

  it("a prune batch does not wait for a reconcile's open transaction (lock_timeout set, rows it holds skipped)", async () => {
    const { w, run, order, first } = await twiceChecked();
    const other = await twiceChecked();
    const trx = await t.db.knex.transaction();
    try {
      // What a reconcile's batch holds: its order row updated, checks inserted, its run's heartbeat, the checks it reads locked.
      await trx.raw(`UPDATE payment_orders SET last_checked_at = now() WHERE id = ?::bigint`, [order.id]);
      await trx.raw(`SELECT id FROM recon_items WHERE id = ?::bigint FOR UPDATE`, [first]);
      await trx.raw(`UPDATE job_runs SET heartbeat_at = now() WHERE id = ?::bigint`, [run]);
      await trx.raw(
        `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                  local_status, local_category, local_amount, verdict)
         VALUES (?::bigint, 'payment', ?::bigint, 'm', 't', 'INR', 'UPI', now(), 'Success', 'success', '1', 'matched')`,
        [await w.run('reconcile', RECENT, 'running'), order.id],
      );
      const r = await prune({ lockTimeoutMs: 200 });
      expect(r.status).toBe('completed');
      expect(await exists(t.db.knex, 'recon_items', other.first)).toBe(false);
    } finally {
      await trx.rollback();
    }
    expect(await exists(t.db.knex, 'recon_items', first)).toBe(true);
  });

  it("a reconcile's writes do not wait for a prune batch's open transaction (lock_timeout set)", async () => {
    const { w, run, order } = await twiceChecked();
    await w.run('reconcile', RECENT);
    await w.alert({ at: OLDER, resolvedAt: OLD });
    const { deletePrunableBatch } = await import('../src/db/prune.ts');
    const pruning = await t.db.knex.transaction();
    try {
      for (const table of ['recon_items', 'alerts', 'webhook_events', 'job_runs'] as const) {
        await deletePrunableBatch(pruning, table, CUTOFF, { afterId: '0', limit: 5000, returnRows: false });
      }
      await t.db.knex.transaction(async (rec) => {
        await rec.raw(`SET LOCAL lock_timeout = 200`);
        const newRun = await rec.raw(
          `INSERT INTO job_runs (job, started_at, heartbeat_at) VALUES ('reconcile', now(), now()) RETURNING id`,
        );
        const runId = String((newRun as { rows: Array<{ id: string }> }).rows[0].id);
        await rec.raw(
          `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                    local_status, local_category, local_amount, verdict)
           VALUES (?::bigint, 'payment', ?::bigint, 'm', 't', 'INR', 'UPI', now(), 'Success', 'success', '1', 'matched')`,
          [runId, order.id],
        );
        await rec.raw(`UPDATE payment_orders SET last_checked_at = now(), check_count = check_count + 1 WHERE id = ?::bigint`, [order.id]);
        await rec.raw(`UPDATE job_runs SET heartbeat_at = now() WHERE id = ?::bigint`, [run]);
        await rec.raw(`INSERT INTO alerts (fingerprint, kind, title, payload, created_at) VALUES ('f', 'mismatches', 't', '{}', now())`);
      });
    } finally {
      await pruning.rollback();
    }
  });

  it('archives each removed row first, one gzip JSON-lines file per table and month, read back exactly', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-archive-'));
    const { first } = await twiceChecked();
    const r = await prune({ archiveDir: dir });
    const month = OLDER.toISOString().slice(0, 7);
    const file = path.join(dir, 'recon_items', `recon_items-${month}.jsonl.gz`);
    expect(r.archiveFiles).toContain(file);
    const rows = gunzipSync(fs.readFileSync(file))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => losslessParse(l) as Record<string, unknown>);
    const row = rows.find((x) => String(x.id) === first)!;
    expect(row).toBeDefined();
    expect(isLosslessNumber(row.local_amount)).toBe(true);
    expect(String(row.local_amount)).toBe('1250.50');
    expect(row.verdict).toBe('pending');
    expect(new Date(row.checked_at as string).getTime()).toBe(OLDER.getTime());
    expect(await exists(t.db.knex, 'recon_items', first)).toBe(false);
  });
});
