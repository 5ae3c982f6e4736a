import type { Knex } from 'knex';
import { idOrNull, int, oneRow, rowsOf, text } from './row.ts';

type Conn = Knex | Knex.Transaction;

/**
 * What `payrecon prune` removes, table by table: rows older than the cutoff that nothing kept needs.
 * Each `eligible` is a WHERE over the alias `t`, with the cutoff as CUTOFF. The order is the order of
 * the work: checks and alerts go before the job runs they refer to.
 */
export const PRUNE_TABLES = ['recon_items', 'alerts', 'webhook_events', 'console_sessions', 'console_login_failures', 'job_runs'] as const;
export type PruneTable = (typeof PRUNE_TABLES)[number];

const CUTOFF = '(SELECT cutoff FROM p)';
const FINAL = `('success', 'failed')`;
/** A check n of the same order newer than t (the report's latest-check order: checked_at, then id). */
const NEWER = `n.direction = t.direction AND n.order_id = t.order_id AND (n.checked_at > t.checked_at OR (n.checked_at = t.checked_at AND n.id > t.id))`;

interface PruneSpec {
  eligible: string;
  /** The row's time, naming its archive month. */
  time: string;
  /** More rows deleted with a batch (ids, given the CTE `batch`): rows that refer to it and go with it. */
  companions?: string;
}

const SPECS: Record<PruneTable, PruneSpec> = {
  // A superseded check of a final order. Kept: an order's latest check; every check of an order with a
  // case (its page lists them all); and the check each recorded report version was built from (the
  // order's latest check when the version was created).
  recon_items: {
    time: 'checked_at',
    eligible: `t.checked_at < ${CUTOFF}
      AND EXISTS (SELECT 1 FROM recon_items n WHERE ${NEWER})
      AND NOT EXISTS (SELECT 1 FROM payment_orders o WHERE t.direction = 'payment' AND o.id = t.order_id AND o.status_category NOT IN ${FINAL})
      AND NOT EXISTS (SELECT 1 FROM payout_orders o WHERE t.direction = 'payout' AND o.id = t.order_id AND o.status_category NOT IN ${FINAL})
      AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.direction = t.direction AND c.order_id = t.order_id)
      AND NOT EXISTS (
        SELECT 1 FROM report_version_orders r JOIN report_versions v ON v.id = r.version_id
         WHERE r.direction = t.direction AND r.order_id = t.order_id AND v.created_at >= t.checked_at
           AND NOT EXISTS (SELECT 1 FROM recon_items n WHERE ${NEWER} AND n.checked_at <= v.created_at))`,
  },
  // Resolved alerts whose delivery is over. A resolved alert's "resolved" message refers to it: the
  // message goes with it, and an alert whose message is still to be sent stays.
  alerts: {
    time: 'created_at',
    eligible: `t.resolved_at < ${CUTOFF} AND t.status <> 'pending'
      AND NOT EXISTS (SELECT 1 FROM alerts r WHERE r.resolves_alert_id = t.id AND (r.status = 'pending' OR r.resolved_at >= ${CUTOFF}))`,
    companions: 'SELECT r.id FROM alerts r JOIN batch b ON r.resolves_alert_id = b.id',
  },
  // Notifications whose confirmation is over. Kept: those of an order still open, of an unresolved case
  // and of a case an unresolved alert names (matched by transaction ref, as cases and the report do).
  webhook_events: {
    time: 'received_at',
    eligible: `t.received_at < ${CUTOFF} AND t.confirmation <> 'pending'
      AND NOT EXISTS (SELECT 1 FROM payment_orders o WHERE t.direction = 'payment' AND o.transaction_ref = t.transaction_ref AND o.status_category NOT IN ${FINAL})
      AND NOT EXISTS (SELECT 1 FROM payout_orders o WHERE t.direction = 'payout' AND o.transaction_ref = t.transaction_ref AND o.status_category NOT IN ${FINAL})
      AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.transaction_ref = t.transaction_ref AND c.state <> 'resolved')
      AND NOT EXISTS (
        SELECT 1 FROM alerts a JOIN cases c ON c.id = ANY (a.case_ids)
         WHERE a.resolved_at IS NULL AND c.transaction_ref = t.transaction_ref)`,
  },
  // Sessions ended (or idle) since before the cutoff: the idle timeout is at most a week.
  console_sessions: { time: 'created_at', eligible: `coalesce(t.ended_at, t.last_seen_at) < ${CUTOFF}` },
  console_login_failures: { time: 'at', eligible: `t.at < ${CUTOFF}` },
  // Finished runs nothing refers to any more, except each job's latest run (the scheduler's catch-up
  // and `status` read it).
  job_runs: {
    time: 'started_at',
    eligible: `t.finished_at < ${CUTOFF} AND t.status <> 'running'
      AND EXISTS (SELECT 1 FROM job_runs n WHERE n.job = t.job AND n.started_at > t.started_at)
      AND NOT EXISTS (SELECT 1 FROM recon_items r WHERE r.run_id = t.id)
      AND NOT EXISTS (SELECT 1 FROM alerts r WHERE r.run_id = t.id)
      AND NOT EXISTS (SELECT 1 FROM balance_snapshots r WHERE r.run_id = t.id)
      AND NOT EXISTS (SELECT 1 FROM rate_snapshots r WHERE r.run_id = t.id)
      AND NOT EXISTS (SELECT 1 FROM balance_checks r WHERE r.run_id = t.id)`,
  },
};

const params = 'p AS (SELECT ?::timestamptz AS cutoff)';

/** How many rows prune would remove from table now (dry run). */
export async function countPrunable(db: Conn, table: PruneTable, cutoff: Date): Promise<number> {
  // A companion is itself eligible (a resolved, delivered message nothing refers to), so it is counted once.
  const { eligible } = SPECS[table];
  const res = await db.raw(`WITH ${params} SELECT count(*)::int AS n FROM ${table} t WHERE ${eligible}`, [cutoff]);
  return int(oneRow(res), 'n');
}

export interface PrunedBatch {
  /** Rows deleted (the batch and its companions). */
  deleted: number;
  /** The highest id the batch selected: the next batch starts after it. Null when nothing was selected. */
  lastId: string | null;
  /** Each deleted row as Postgres's own JSON text with its UTC month, when asked for (the archive). */
  rows: Array<{ month: string; line: string }>;
}

/** A lock this transaction waits for longer than `ms` fails its statement instead: a batch steps back rather than stall the merchant's writes. */
export async function setTransactionLockTimeout(trx: Knex.Transaction, ms: number): Promise<void> {
  await trx.raw(`SELECT set_config('lock_timeout', ?, true)`, [String(Math.max(1, Math.floor(ms)))]);
}

/**
 * Deletes the next batch of prunable rows after id `afterId`, in the caller's transaction. The rows are
 * chosen and deleted in one statement, so each is still prunable when deleted, and rows another
 * transaction holds locked are skipped (left for the next prune) instead of waited for.
 */
export async function deletePrunableBatch(
  trx: Conn,
  table: PruneTable,
  cutoff: Date,
  opts: { afterId: string; limit: number; returnRows: boolean },
): Promise<PrunedBatch> {
  const { eligible, companions, time } = SPECS[table];
  const head = `WITH ${params},
    batch AS (SELECT t.id FROM ${table} t WHERE t.id > ?::bigint AND ${eligible} ORDER BY t.id LIMIT ? FOR UPDATE OF t SKIP LOCKED),
    doomed AS (SELECT id FROM batch${companions ? ` UNION ${companions}` : ''}),
    d AS (DELETE FROM ${table} x USING doomed WHERE x.id = doomed.id RETURNING x.*)`;
  const last = '(SELECT max(id)::text FROM batch)';
  const bindings = [cutoff, opts.afterId, opts.limit];
  if (!opts.returnRows) {
    const row = oneRow(await trx.raw(`${head} SELECT (SELECT count(*)::int FROM d) AS deleted, ${last} AS last_id`, bindings));
    return { deleted: int(row, 'deleted'), lastId: idOrNull(row, 'last_id'), rows: [] };
  }
  const res = await trx.raw(
    `${head} SELECT row_to_json(d)::text AS line, to_char(d.${time} AT TIME ZONE 'UTC', 'YYYY-MM') AS month, ${last} AS last_id
       FROM d ORDER BY d.id`,
    bindings,
  );
  const rows = rowsOf(res);
  const lastId = rows[0] ? idOrNull(rows[0], 'last_id') : null;
  return { deleted: rows.length, lastId, rows: rows.map((r) => ({ month: text(r, 'month'), line: text(r, 'line') })) };
}
