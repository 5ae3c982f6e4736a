import type { Knex } from 'knex';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';
import { date, dateOrNull, int, intOrNull, oneOf, oneOfOrNull, oneRow, rowsOf, text, textOrNull, texts, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

const RERUN_STATES = ['queued', 'running', 'completed', 'failed'] as const;
export type RerunState = (typeof RERUN_STATES)[number];
const PHASES = ['reconcile', 'report'] as const;

export interface RerunRow {
  id: string;
  businessDate: string;
  /** The account whose day it reruns; 'default' with one account. */
  account: string;
  requestedBy: string;
  requestedAt: Date;
  state: RerunState;
  phase: (typeof PHASES)[number] | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  reconcileRunIds: string[];
  reportVersion: number | null;
  error: string | null;
}

const SELECT = `SELECT r.id::text AS id, r.business_date::text AS business_date, r.account_id, u.name AS requested_by, r.requested_at,
    r.state, r.phase, r.started_at, r.finished_at, r.reconcile_run_ids, r.report_version, r.error
  FROM console_reruns r JOIN console_users u ON u.id = r.requested_by`;

const toRerun = (r: Row): RerunRow => ({
  id: text(r, 'id'),
  businessDate: text(r, 'business_date'),
  account: text(r, 'account_id'),
  requestedBy: text(r, 'requested_by'),
  requestedAt: date(r, 'requested_at'),
  state: oneOf(r, 'state', RERUN_STATES),
  phase: oneOfOrNull(r, 'phase', PHASES),
  startedAt: dateOrNull(r, 'started_at'),
  finishedAt: dateOrNull(r, 'finished_at'),
  reconcileRunIds: texts(r, 'reconcile_run_ids'),
  reportVersion: intOrNull(r, 'report_version'),
  error: textOrNull(r, 'error'),
});

/** Queues a rerun of an account's day (unset: the single account's, 'default'); an already queued rerun of the same account and day is returned instead of a second one. */
export async function enqueueRerun(
  db: Conn,
  r: { businessDate: string; account?: string; userId: string; now: Date },
): Promise<{ id: string; queued: boolean }> {
  const existing = await db.raw(
    `SELECT id::text AS id FROM console_reruns WHERE account_id = ? AND business_date = ?::date AND state = 'queued' LIMIT 1`,
    [r.account ?? DEFAULT_ACCOUNT_ID, r.businessDate],
  );
  const [found] = rowsOf(existing);
  if (found) return { id: text(found, 'id'), queued: false };
  const res = await db.raw(
    `INSERT INTO console_reruns (business_date, account_id, requested_by, requested_at) VALUES (?::date, ?, ?, ?) RETURNING id::text AS id`,
    [r.businessDate, r.account ?? DEFAULT_ACCOUNT_ID, r.userId, r.now],
  );
  return { id: text(oneRow(res), 'id'), queued: true };
}

/** Takes the oldest queued rerun: the update is conditional on it still being queued. */
export async function claimNextRerun(db: Conn, now: Date): Promise<RerunRow | null> {
  const res = await db.raw(
    `UPDATE console_reruns SET state = 'running', phase = 'reconcile', started_at = ?, heartbeat_at = ?,
            after_run_id = (SELECT coalesce(max(id), 0) FROM job_runs)
      WHERE id = (SELECT id FROM console_reruns WHERE state = 'queued' ORDER BY requested_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        AND state = 'queued'
      RETURNING id::text AS id`,
    [now, now],
  );
  const [claimed] = rowsOf(res);
  return claimed ? findRerun(db, text(claimed, 'id')) : null;
}

export async function setRerunPhase(
  db: Conn,
  id: string,
  phase: 'reconcile' | 'report',
  reconcileRunIds: string[],
  now: Date,
): Promise<void> {
  await db.raw(`UPDATE console_reruns SET phase = ?, reconcile_run_ids = ?::text[], heartbeat_at = ? WHERE id = ? AND state = 'running'`, [
    phase,
    reconcileRunIds,
    now,
    id,
  ]);
}

export async function finishRerun(
  db: Conn,
  id: string,
  f: { state: 'completed' | 'failed'; reconcileRunIds: string[]; reportVersion: number | null; error: string | null; now: Date },
): Promise<void> {
  await db.raw(
    `UPDATE console_reruns SET state = ?, finished_at = ?, heartbeat_at = ?, reconcile_run_ids = ?::text[], report_version = ?, error = ?
      WHERE id = ? AND state = 'running'`,
    [f.state, f.now, f.now, f.reconcileRunIds, f.reportVersion, f.error, id],
  );
}

/**
 * Reruns left 'running' by a console that died: failed, so the queue moves on. Only call while
 * holding the rerun worker's lock, so no live worker owns them.
 */
export async function failAbandonedReruns(db: Conn, now: Date): Promise<number> {
  const res = await db.raw(
    `UPDATE console_reruns SET state = 'failed', finished_at = ?, error = 'the console stopped while this rerun ran; start it again'
      WHERE state = 'running' RETURNING id`,
    [now],
  );
  return rowsOf(res).length;
}

export async function findRerun(db: Conn, id: string): Promise<RerunRow | null> {
  const res = await db.raw(`${SELECT} WHERE r.id = ?`, [id]);
  const [row] = rowsOf(res);
  return row ? toRerun(row) : null;
}

export async function listReruns(db: Conn, limit = 50): Promise<RerunRow[]> {
  const res = await db.raw(`${SELECT} ORDER BY r.requested_at DESC, r.id DESC LIMIT ?`, [limit]);
  return rowsOf(res).map(toRerun);
}

export interface RerunProgress {
  runId: string;
  status: string;
  selected: number;
  checked: number;
}

/** The newest reconcile run of the rerun's account and day started after the rerun did: what the progress bar shows. */
export async function rerunReconcileProgress(db: Conn, rerunId: string): Promise<RerunProgress | null> {
  const res = await db.raw(
    `SELECT j.id::text AS run_id, j.status, j.selected, j.checked
       FROM console_reruns r JOIN job_runs j
         ON j.job = 'reconcile' AND j.id > r.after_run_id AND j.account_id = r.account_id
        AND j.params->'selection'->>'label' = r.business_date::text
      WHERE r.id = ?
      ORDER BY j.id DESC LIMIT 1`,
    [rerunId],
  );
  const [r] = rowsOf(res);
  return r ? { runId: text(r, 'run_id'), status: text(r, 'status'), selected: int(r, 'selected'), checked: int(r, 'checked') } : null;
}
