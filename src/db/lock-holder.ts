import type { Db } from './connect.ts';
import { accountLockName, jobLockName } from './locks.ts';
import { date, dateOrNull, id, intOrNull, isRecord, object, textOrNull, type Row } from './row.ts';
import { stallOf } from '../recon/run-stall.ts';

/** Who holds a job's lock, as far as the database can tell, for a message a person acts on. */
export interface LockHolder {
  /** Postgres backend of the session holding the advisory lock (null on PGlite or when not found). */
  sessionPid: number | null;
  /** That session's application_name, e.g. "payrecon-reconcile". */
  application: string | null;
  /** The job's run that is still running, started under the lock. */
  runId: string | null;
  /** What that run does, e.g. "due sweep" or "range 2026-11-21". */
  run: string | null;
  /** The process running that run and its machine, as the run recorded them (migration 020). */
  processPid: number | null;
  host: string | null;
  since: Date | null;
  lastProgressAt: Date | null;
}

/**
 * The holder of job's lock: the session the engine names (Postgres: from pg_locks) and the job's latest running run.
 * With an account (several configured), the lock is that account's own (accountLockName) and so is the run.
 */
export async function findLockHolder(db: Db, jobName: string, account?: string): Promise<LockHolder> {
  const session = await db.engine.lockSession(jobLockName(db, accountLockName(jobName, account)));
  const row: Row | undefined = await db
    .knex('job_runs')
    .where(account === undefined ? { job: jobName, status: 'running' } : { job: jobName, status: 'running', account_id: account })
    .orderBy([
      { column: 'started_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('id', 'params', 'started_at', 'heartbeat_at', 'pid', 'host');
  const run = row ? toHolderRun(row) : null;
  return {
    sessionPid: session?.pid ?? null,
    application: session?.application ?? null,
    processPid: run?.pid ?? null,
    host: run?.host ?? null,
    runId: run?.id ?? null,
    run: run ? describeParams(run.params) : null,
    since: run?.startedAt ?? null,
    lastProgressAt: run?.heartbeatAt ?? null,
  };
}

/** The running run under the lock, as findLockHolder reads it. */
function toHolderRun(r: Row) {
  return {
    id: id(r, 'id'),
    params: object(r, 'params'),
    startedAt: date(r, 'started_at'),
    heartbeatAt: dateOrNull(r, 'heartbeat_at'),
    pid: intOrNull(r, 'pid'),
    host: textOrNull(r, 'host'),
  };
}

function describeParams(params: Record<string, unknown>): string | null {
  const selection = isRecord(params.selection) ? params.selection : {};
  const field = (name: string): string | undefined => {
    const v = selection[name];
    return typeof v === 'string' ? v : undefined;
  };
  const mode = field('mode');
  if (!mode) return null;
  if (mode === 'due') return 'due sweep';
  if (mode === 'range') return `rerun of ${field('label') ?? 'a date range'}`;
  if (mode === 'open') return 'open orders around a balance snapshot';
  return `rerun of ${field('ref') ?? 'one order'}`;
}

/** "run 42 (due sweep, pid 5120 on worker-1, database session 811 payrecon-reconcile)": who to look at, and where. */
export function nameLockHolder(holder: LockHolder): string {
  const process = holder.processPid !== null ? `pid ${holder.processPid}${holder.host ? ` on ${holder.host}` : ''}` : null;
  const session =
    holder.sessionPid !== null ? `database session ${holder.sessionPid}${holder.application ? ` ${holder.application}` : ''}` : null;
  const who = [holder.run, process, session].filter(Boolean).join(', ');
  return holder.runId ? `run ${holder.runId}${who ? ` (${who})` : ''}` : who ? `a session (${who})` : 'another session';
}

/** "run 42 (due sweep, pid 5120 on worker-1, database session 811 payrecon-reconcile) has held the lock for 7m 3s, last progress 12s ago". */
export function describeLockHolder(holder: LockHolder, now: Date): string {
  const name = nameLockHolder(holder);
  const held = holder.since ? ` has held the lock for ${formatSpan(now.getTime() - holder.since.getTime())}` : ' holds the lock';
  const progress = holder.lastProgressAt ? `, last progress ${formatSpan(now.getTime() - holder.lastProgressAt.getTime())} ago` : '';
  return `${name}${held}${progress}`;
}

export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** A lock holder whose run has made no progress for longer than the stall threshold. */
export interface StalledHolder {
  runId: string | null;
  pid: number | null;
  host: string | null;
  /** Its last recorded progress. */
  since: Date;
  forMs: number;
  /** "run 42 (…) holds the lock and has made no progress for 7m 12s, since 2026-11-22T20:03:00Z". */
  description: string;
}

/** The liveness rule applied to a lock holder (pure: `now` and the threshold come in). Null: not stalled, or no run to judge. */
export function stalledHolder(holder: LockHolder, now: Date, afterMs: number): StalledHolder | null {
  if (holder.runId === null) return null;
  const stall = stallOf({ status: 'running', lastProgressAt: holder.lastProgressAt }, now, afterMs);
  if (!stall) return null;
  const since = stall.since.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    runId: holder.runId,
    pid: holder.processPid,
    host: holder.host,
    ...stall,
    description: `${nameLockHolder(holder)} holds the lock and has made no progress for ${formatSpan(stall.forMs)}, since ${since}`,
  };
}
