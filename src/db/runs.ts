import os from 'node:os';
import type { Knex } from 'knex';
import { bool, date, dateOrNull, id, int, intOrNull, object, oneOf, text, textOrNull, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

const RUN_STATUSES = ['running', 'completed', 'failed', 'credentials', 'provider_unavailable', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Counters by name (e.g. { matched: 10, mismatch: 2 }); whole numbers. */
export type RunCounts = Record<string, number>;

export interface RunRow {
  id: string;
  job: string;
  /** The account whose orders the run checks ("default": the single account); its items, cases and alerts carry it. */
  accountId: string;
  params: Record<string, unknown>;
  status: RunStatus;
  dryRun: boolean;
  startedAt: Date;
  /** The run's last progress: its start, each batch written, its resumption, its end. */
  heartbeatAt: Date;
  /** The process running it (the latest one, for a resumed run); null for runs from before migration 020. */
  pid: number | null;
  host: string | null;
  finishedAt: Date | null;
  /** Where a killed run resumes, e.g. { payment: "1234", payout: "77" } (last order id fully written). */
  checkpoint: Record<string, unknown>;
  selected: number;
  checked: number;
  counts: RunCounts;
  error: string | null;
}

export function toRunRow(r: Row): RunRow {
  return {
    id: id(r, 'id'),
    job: text(r, 'job'),
    accountId: text(r, 'account_id'),
    params: object(r, 'params'),
    status: oneOf(r, 'status', RUN_STATUSES),
    dryRun: bool(r, 'dry_run'),
    startedAt: date(r, 'started_at'),
    heartbeatAt: date(r, 'heartbeat_at'),
    pid: intOrNull(r, 'pid'),
    host: textOrNull(r, 'host'),
    finishedAt: dateOrNull(r, 'finished_at'),
    checkpoint: object(r, 'checkpoint'),
    selected: int(r, 'selected'),
    checked: int(r, 'checked'),
    counts: runCounts(r),
    error: textOrNull(r, 'error'),
  };
}

/** counts: a JSON object of whole numbers. */
function runCounts(r: Row): RunCounts {
  const counts: RunCounts = {};
  for (const [name, n] of Object.entries(object(r, 'counts'))) {
    if (typeof n !== 'number' || !Number.isInteger(n)) throw new Error(`column counts: ${name} is not a whole number`);
    counts[name] = n;
  }
  return counts;
}

/** Who runs a run, so a stuck one can be named: this process by default. */
export interface RunOwner {
  pid: number;
  host: string;
}

export const thisProcess = (): RunOwner => ({ pid: process.pid, host: os.hostname() });

export async function createRun(
  db: Conn,
  job: string,
  params: Record<string, unknown>,
  opts: { dryRun: boolean; now: Date; selected?: number; owner?: RunOwner; accountId?: string },
): Promise<RunRow> {
  const owner = opts.owner ?? thisProcess();
  const account = opts.accountId !== undefined ? { account_id: opts.accountId } : {};
  const [row] = await db('job_runs')
    .insert({
      job,
      params: JSON.stringify(params),
      dry_run: opts.dryRun,
      started_at: opts.now,
      heartbeat_at: opts.now,
      selected: opts.selected ?? 0,
      pid: owner.pid,
      host: owner.host,
      ...account,
    })
    .returning('*');
  return toRunRow(row);
}

/**
 * A run taken over from a process that died or was stopped: now this process's and running again
 * (`status` showed an interrupted run's "the next run resumes it" while it was being resumed), and its
 * progress clock restarts, so the dead process's silence is not counted against the run that resumes it.
 */
export async function takeOverRun(db: Conn, runId: string, now: Date, owner: RunOwner = thisProcess()): Promise<void> {
  await db('job_runs')
    .where({ id: runId })
    .update({ status: 'running', error: null, finished_at: null, heartbeat_at: now, pid: owner.pid, host: owner.host });
}

/**
 * The latest run of job left unfinished: 'running' (its process died: call only while holding the job
 * lock, so it is not alive) or 'interrupted' (stopped by a signal after a checkpoint).
 */
export async function findResumableRun(db: Conn, job: string, accountId?: string): Promise<RunRow | null> {
  // Of one account only when given (several configured): another account's run needs that account's client.
  const row = await db('job_runs')
    .where(accountId !== undefined ? { job, account_id: accountId } : { job })
    .whereIn('status', ['running', 'interrupted'])
    // A queued run (issue 41) is the workers' to finish, batch by batch: never resumed in-process.
    .whereRaw(`params->>'queued' IS NULL`)
    .orderBy([
      { column: 'started_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  return row ? toRunRow(row) : null;
}

export async function findRun(db: Conn, runId: string): Promise<RunRow | null> {
  const row = await db('job_runs').where({ id: runId }).first();
  return row ? toRunRow(row) : null;
}

/**
 * Progress after a batch, in the batch's transaction so the checkpoint moves with its results:
 * merges checkpoint keys, adds countsDelta to counts and checkedDelta to checked, bumps the heartbeat.
 */
export async function checkpointRun(
  trx: Conn,
  runId: string,
  checkpoint: Record<string, unknown>,
  countsDelta: RunCounts,
  checkedDelta: number,
  now: Date = new Date(),
): Promise<void> {
  await trx.raw(
    `UPDATE job_runs SET
       checkpoint = checkpoint || ?::jsonb,
       checked = checked + ?::int,
       heartbeat_at = ?,
       counts = COALESCE((
         SELECT jsonb_object_agg(k, s) FROM (
           SELECT k, sum(v::bigint) AS s FROM (
             SELECT key AS k, value AS v FROM jsonb_each_text(counts)
             UNION ALL SELECT key, value FROM jsonb_each_text(?::jsonb)
           ) u GROUP BY k
         ) g), '{}'::jsonb)
     WHERE id = ?`,
    [JSON.stringify(checkpoint), checkedDelta, now, JSON.stringify(countsDelta), runId],
  );
}

/** Sets how many orders the run selected (known once counted, possibly after createRun). */
export async function setRunSelected(db: Conn, runId: string, selected: number): Promise<void> {
  await db('job_runs').where({ id: runId }).update({ selected });
}

/** Final status; counts, when given, replace the stored ones. */
export async function finishRun(
  db: Conn,
  runId: string,
  status: Exclude<RunStatus, 'running'>,
  counts: RunCounts | undefined,
  error: string | null | undefined,
  now: Date,
): Promise<void> {
  const set: Record<string, unknown> = { status, finished_at: now, heartbeat_at: now, error: error ?? null };
  if (counts) set.counts = JSON.stringify(counts);
  await db('job_runs').where({ id: runId }).update(set);
}

/** The latest run of each job, by job name. */
export async function lastRuns(db: Conn): Promise<RunRow[]> {
  const rows = await db('job_runs')
    .distinctOn('job')
    .select('*')
    .orderBy([{ column: 'job' }, { column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  return rows.map(toRunRow);
}
