import type { Knex } from 'knex';
import { quoteIdent } from './ident.ts';
import { createRun, toRunRow, type RunRow } from './runs.ts';
import { int, rowCountOf, rowsOf, text, textOrNull } from './row.ts';
import type { Direction } from '../domain/types.ts';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';

type Conn = Knex | Knex.Transaction;

/**
 * payrecon's side of the graphile-worker queue (issue 41): planning a scheduled occurrence once, a
 * queued run's batches and their claims, the workers' heartbeats. Jobs are added through graphile-worker's
 * own SQL function, inside the transaction that records them, so a plan is enqueued whole or not at all.
 */

/** graphile-worker's schema beside payrecon's: payrecon → payrecon_worker, so two deployments sharing a database do not share a queue. */
export const queueSchemaFor = (dbSchema: string): string => `${dbSchema}_worker`;

export interface QueueJob {
  task: string;
  payload: Record<string, unknown>;
  /** The job key: a job with this key already queued or running is not added again. */
  key: string;
  runAt?: Date;
  maxAttempts: number;
  priority?: number;
  /** graphile-worker's named queue: its jobs run one at a time, across every worker. */
  queue?: string;
}

/** A batch of a queued reconcile run: one direction's order ids, in id order. */
export interface PlannedBatch {
  direction: Direction;
  ids: readonly string[];
}

/**
 * Records a scheduled occurrence (account, job, dueKey) and enqueues its jobs, in one transaction.
 * Returns false when another scheduler planned it already: nothing is enqueued twice.
 */
export async function planOnce(
  db: Knex,
  queueSchema: string,
  occurrence: { account: string; job: string; dueKey: string; now: Date },
  jobs: (trx: Knex.Transaction) => Promise<{ runId: string | null; jobs: QueueJob[] }>,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const inserted = await trx.raw(
      `INSERT INTO queued_work (account, job, due_key, enqueued_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [occurrence.account, occurrence.job, occurrence.dueKey, occurrence.now],
    );
    if (rowCountOf(inserted) === 0) return false;
    const planned = await jobs(trx);
    if (planned.runId !== null) {
      await trx('queued_work')
        .where({ account: occurrence.account, job: occurrence.job, due_key: occurrence.dueKey })
        .update({ run_id: planned.runId });
    }
    for (const job of planned.jobs) await addJob(trx, queueSchema, job);
    return true;
  });
}

/**
 * graphile-worker's add_job, in the caller's transaction. 'unsafe_dedupe': a job with this key that is
 * queued, running or failed is left as it is (the default 'replace' would add a second one beside a running job).
 */
export async function addJob(db: Conn, queueSchema: string, job: QueueJob): Promise<void> {
  await db.raw(
    `SELECT 1 FROM ${quoteIdent(queueSchema)}.add_job(
       identifier => ?, payload => ?::json, queue_name => ?, run_at => ?, max_attempts => ?, job_key => ?, priority => ?,
       job_key_mode => 'unsafe_dedupe')`,
    [job.task, JSON.stringify(job.payload), job.queue ?? null, job.runAt ?? null, job.maxAttempts, job.key, job.priority ?? 0],
  );
}

/** A queued reconcile run: its job_runs row (params marked queued, so the in-process path never resumes it) and its batches. */
export async function createQueuedRun(
  trx: Knex.Transaction,
  account: string,
  params: Record<string, unknown>,
  batches: readonly PlannedBatch[],
  now: Date,
): Promise<RunRow> {
  const selected = batches.reduce((n, b) => n + b.ids.length, 0);
  const run = await createRun(trx, 'reconcile', { ...params, queued: true, account }, { dryRun: false, now, selected, accountId: account });
  const rows = batches.map((b, i) => ({ run_id: run.id, batch: i, account, direction: b.direction, size: b.ids.length }));
  for (let at = 0; at < rows.length; at += 1000) await trx('run_batches').insert(rows.slice(at, at + 1000));
  return run;
}

/**
 * A worker takes a batch: a new claim (attempts + 1) that supersedes any earlier one. Null when the
 * batch is already written (a retry of a job whose write committed just before its worker died).
 */
export async function claimBatch(db: Conn, runId: string, batch: number, workerId: string, now: Date): Promise<number | null> {
  const rows = rowsOf(
    await db.raw(
      `UPDATE run_batches SET attempts = attempts + 1, claimed_by = ?, claimed_at = ?
        WHERE run_id = ? AND batch = ? AND done_at IS NULL RETURNING attempts`,
      [workerId, now, runId, batch],
    ),
  );
  return rows.length ? int(rows[0], 'attempts') : null;
}

/** Marks the batch written, in the write's transaction; false (the caller rolls back) when the claim was superseded. */
export async function finishBatch(
  trx: Conn,
  runId: string,
  batch: number,
  claim: { workerId: string; attempt: number },
  now: Date,
): Promise<boolean> {
  const res = await trx.raw(
    `UPDATE run_batches SET done_at = ?, done_by = ?
      WHERE run_id = ? AND batch = ? AND done_at IS NULL AND claimed_by = ? AND attempts = ?`,
    [now, claim.workerId, runId, batch, claim.workerId, claim.attempt],
  );
  return rowCountOf(res) === 1;
}

/** Once every batch is written the run is completed, by whichever worker wrote the last one (once: the run must still be running). */
export async function completeRunIfDone(db: Conn, runId: string, now: Date): Promise<RunRow | null> {
  const rows = rowsOf(
    await db.raw(
      `UPDATE job_runs SET status = 'completed', finished_at = ?, heartbeat_at = ?
        WHERE id = ? AND status = 'running'
          AND NOT EXISTS (SELECT 1 FROM run_batches WHERE run_id = ? AND done_at IS NULL)
        RETURNING *`,
      [now, now, runId, runId],
    ),
  );
  return rows.length ? toRunRow(rows[0]) : null;
}

/** A worker process's heartbeat. False when its row was removed: it was presumed dead and its jobs were handed on. */
export async function beat(
  db: Conn,
  me: { instance: string; host: string; pid: number; workerIds: readonly string[] },
  now: Date,
  first: boolean,
): Promise<boolean> {
  if (first) {
    await db('worker_heartbeats').insert({
      instance: me.instance,
      host: me.host,
      pid: me.pid,
      worker_ids: me.workerIds,
      started_at: now,
      seen_at: now,
    });
    return true;
  }
  const n = await db('worker_heartbeats').where({ instance: me.instance }).update({ seen_at: now, worker_ids: me.workerIds });
  return n === 1;
}

export async function removeHeartbeat(db: Conn, instance: string): Promise<void> {
  await db('worker_heartbeats').where({ instance }).delete();
}

/**
 * Workers silent since `before` are presumed dead: their rows go, and graphile-worker unlocks the jobs
 * they held (otherwise held for its fixed 4 hours), in one transaction. Returns the instances reaped.
 */
export async function reapSilentWorkers(db: Knex, queueSchema: string, before: Date): Promise<string[]> {
  return db.transaction(async (trx) => {
    const rows = rowsOf(await trx.raw(`DELETE FROM worker_heartbeats WHERE seen_at < ? RETURNING instance, worker_ids`, [before]));
    // Also jobs locked before `before` under an id no live worker names: a process that died between
    // taking its first job and recording its pool's id.
    const orphans = rowsOf(
      await trx.raw(
        `SELECT DISTINCT locked_by FROM ${quoteIdent(queueSchema)}.jobs
          WHERE locked_by IS NOT NULL AND locked_at < ?
            AND locked_by NOT IN (SELECT unnest(worker_ids) FROM worker_heartbeats)`,
        [before],
      ),
    );
    const ids = [...rows.flatMap((r) => r.worker_ids as string[]), ...orphans.map((r) => text(r, 'locked_by'))];
    if (ids.length) await trx.raw(`SELECT ${quoteIdent(queueSchema)}.force_unlock_workers(?::text[])`, [ids]);
    return rows.map((r) => text(r, 'instance'));
  });
}

export interface LiveWorker {
  instance: string;
  host: string;
  pid: number;
  seenAt: Date;
}

/** Workers seen since `since` (doctor: is anything processing the queue?). */
export async function liveWorkers(db: Conn, since: Date): Promise<LiveWorker[]> {
  const rows = rowsOf(
    await db.raw(`SELECT instance, host, pid, seen_at FROM worker_heartbeats WHERE seen_at >= ? ORDER BY instance`, [since]),
  );
  return rows.map((r) => ({ instance: text(r, 'instance'), host: text(r, 'host'), pid: int(r, 'pid'), seenAt: r.seen_at as Date }));
}

/** Whether graphile-worker's schema is installed (doctor), and its migration level. */
export async function queueSchemaVersion(db: Conn, queueSchema: string): Promise<number | null> {
  const exists = rowsOf(await db.raw(`SELECT to_regclass(?) AS t`, [`${quoteIdent(queueSchema)}.migrations`]));
  if (textOrNull(exists[0], 't') === null) return null;
  const rows = rowsOf(await db.raw(`SELECT coalesce(max(id), 0)::int AS v FROM ${quoteIdent(queueSchema)}.migrations`));
  return int(rows[0], 'v');
}

export interface QueueCount {
  task: string;
  account: string;
  /** waiting: not locked, not failed for good; running: locked; failed: out of attempts; retried: waiting again after a failure. */
  state: 'waiting' | 'running' | 'failed' | 'retried';
  count: number;
}

/**
 * The queue by task, account and state (metrics). The account is the job key's second part
 * (`<kind>:<account>:…`); graphile-worker's jobs view has no payload.
 */
export async function queueCounts(db: Conn, queueSchema: string): Promise<QueueCount[]> {
  const rows = rowsOf(
    await db.raw(
      `SELECT task_identifier AS task, coalesce(split_part(key, ':', 2), '') AS account,
              CASE WHEN locked_at IS NOT NULL THEN 'running'
                   WHEN attempts >= max_attempts THEN 'failed'
                   WHEN attempts > 0 THEN 'retried'
                   ELSE 'waiting' END AS state,
              count(*)::int AS n
         FROM ${quoteIdent(queueSchema)}.jobs GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    ),
  );
  return rows.map((r) => ({
    task: text(r, 'task'),
    account: text(r, 'account') || DEFAULT_ACCOUNT_ID,
    state: text(r, 'state') as QueueCount['state'],
    count: int(r, 'n'),
  }));
}
