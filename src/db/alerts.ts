import type { Knex } from 'knex';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';
import { arrayLiteral } from './unnest.ts';
import { date, dateOrNull, id, idOrNull, int, oneOf, oneRow, rowsOf, text, textOrNull, texts, type Row } from './row.ts';

/** The alerts table: what was raised, whether and when it went out. */

/**
 * Every state an alert row can be in (sql/011): undeliverable (raised with no channel configured) and
 * summarised (told in a stale-news summary) included. A reader that knew only some of them threw on the
 * others, and that one throw stopped all alerting for good (issue 35 #1).
 */
export const ALERT_STATUSES = ['pending', 'sent', 'suppressed', 'undeliverable', 'summarised'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export interface AlertRecord {
  id: string;
  fingerprint: string;
  kind: string;
  run_id: string | null;
  title: string;
  payload: unknown;
  payload_digest: string;
  created_at: Date;
  status: AlertStatus;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | null;
  sent_at: Date | null;
  delivered_channels: string[];
}

function toAlert(r: Row): AlertRecord {
  return {
    id: id(r, 'id'),
    fingerprint: text(r, 'fingerprint'),
    kind: text(r, 'kind'),
    run_id: idOrNull(r, 'run_id'),
    title: text(r, 'title'),
    payload: r.payload,
    payload_digest: text(r, 'payload_digest'),
    created_at: date(r, 'created_at'),
    status: oneOf(r, 'status', ALERT_STATUSES),
    attempts: int(r, 'attempts'),
    last_error: textOrNull(r, 'last_error'),
    next_attempt_at: dateOrNull(r, 'next_attempt_at'),
    sent_at: dateOrNull(r, 'sent_at'),
    delivered_channels: texts(r, 'delivered_channels'),
  };
}

const COLUMNS = `id::text AS id, fingerprint, kind, run_id::text AS run_id, title, payload, payload_digest, created_at,
  status, attempts, last_error, next_attempt_at, sent_at, delivered_channels`;

export interface NewAlert {
  fingerprint: string;
  kind: string;
  runId: string | null;
  /** Unset: "default" (the single account). */
  accountId?: string;
  title: string;
  payload: unknown;
  payloadDigest: string;
  createdAt: Date;
  status: 'pending' | 'suppressed';
  caseIds?: readonly string[];
}

export async function insertAlert(db: Knex, a: NewAlert): Promise<AlertRecord> {
  const res = await db.raw(
    `INSERT INTO alerts (fingerprint, kind, run_id, account_id, title, payload, payload_digest, created_at, status, next_attempt_at, case_ids)
     VALUES (?, ?, ?::bigint, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::bigint[]) RETURNING ${COLUMNS}`,
    [
      a.fingerprint,
      a.kind,
      a.runId,
      a.accountId ?? DEFAULT_ACCOUNT_ID,
      a.title,
      JSON.stringify(a.payload),
      a.payloadDigest,
      a.createdAt,
      a.status,
      a.status === 'pending' ? a.createdAt : null,
      arrayLiteral(a.caseIds ?? [], (x) => x),
    ],
  );
  return toAlert(oneRow(res));
}

/** The newest unresolved alert for a fingerprint that was or will be delivered (suppressed ones are only records; a resolved one is over). */
export async function latestLiveAlert(db: Knex, fingerprint: string): Promise<AlertRecord | null> {
  const res = await db.raw(
    `SELECT ${COLUMNS} FROM alerts WHERE fingerprint = ? AND status IN ('pending', 'sent') AND resolved_at IS NULL
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [fingerprint],
  );
  return rowsOf(res).map(toAlert)[0] ?? null;
}

/** Older undelivered alerts of a fingerprint, replaced by a newer finding: sending them now would be stale news. */
export async function supersedePendingAlerts(db: Knex, fingerprint: string, byId: string): Promise<number> {
  const res = await db.raw(
    `UPDATE alerts SET status = 'suppressed', next_attempt_at = NULL, last_error = coalesce(last_error || '; ', '') || ?
      WHERE fingerprint = ? AND status = 'pending' AND id <> ?::bigint RETURNING id`,
    [`superseded by alert ${byId}`, fingerprint, byId],
  );
  return rowsOf(res).length;
}

/**
 * Claims the oldest due pending alert: counts the attempt and pushes next_attempt_at out by
 * `leaseMs`, so a concurrent sender skips it and a sender that crashes mid-delivery leaves it
 * to be retried once the lease has run out.
 */
export async function claimDueAlert(db: Knex, now: Date, leaseMs: number): Promise<AlertRecord | null> {
  const res = await db.raw(
    `UPDATE alerts SET attempts = attempts + 1, next_attempt_at = ?
      WHERE id = (SELECT id FROM alerts WHERE status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
                   ORDER BY next_attempt_at NULLS FIRST, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [new Date(now.getTime() + leaseMs), now],
  );
  return rowsOf(res).map(toAlert)[0] ?? null;
}

/** Records that one channel took the alert, before the others are tried. */
export async function recordAlertChannel(db: Knex, id: string, channel: string): Promise<void> {
  await db.raw(
    `UPDATE alerts SET delivered_channels = array_append(delivered_channels, ?::text)
      WHERE id = ?::bigint AND NOT (? = ANY (delivered_channels))`,
    [channel, id, channel],
  );
}

export async function markAlertSent(db: Knex, id: string, at: Date): Promise<void> {
  await db.raw(`UPDATE alerts SET status = 'sent', sent_at = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?::bigint`, [at, id]);
}

/** Keeps the alert pending until `nextAttemptAt`; `error` must already be scrubbed. */
export async function markAlertFailed(db: Knex, id: string, error: string, nextAttemptAt: Date): Promise<void> {
  await db.raw(`UPDATE alerts SET last_error = ?, next_attempt_at = ? WHERE id = ?::bigint`, [error, nextAttemptAt, id]);
}

export async function alertsByFingerprint(db: Knex, fingerprint: string): Promise<AlertRecord[]> {
  const res = await db.raw(`SELECT ${COLUMNS} FROM alerts WHERE fingerprint = ? ORDER BY created_at, alerts.id`, [fingerprint]);
  return rowsOf(res).map(toAlert);
}

/** An unresolved alert that someone may have been told about, with the cases behind it. */
export interface UnresolvedAlert {
  id: string;
  fingerprint: string;
  kind: string;
  title: string;
  status: AlertStatus;
  caseIds: string[];
}

/** Unresolved alerts whose cases have all been resolved (alerts with no cases are not chosen here). */
export async function alertsWithCausesCleared(db: Knex): Promise<UnresolvedAlert[]> {
  const res = await db.raw(
    `SELECT a.id::text AS id, a.fingerprint, a.kind, a.title, a.status, a.case_ids::text[] AS case_ids FROM alerts a
      WHERE a.resolved_at IS NULL AND cardinality(a.case_ids) > 0
        AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.id = ANY (a.case_ids) AND c.state <> 'resolved')
      ORDER BY a.id`,
  );
  return rowsOf(res).map(toUnresolved);
}

/** Unresolved alerts of the given fingerprints (a cause that is not a case: a failed job, a flagged rate). */
export async function unresolvedAlertsOf(db: Knex, fingerprints: readonly string[]): Promise<UnresolvedAlert[]> {
  if (fingerprints.length === 0) return [];
  const res = await db.raw(
    `SELECT id::text AS id, fingerprint, kind, title, status, case_ids::text[] AS case_ids FROM alerts
      WHERE resolved_at IS NULL AND fingerprint = ANY (?::text[]) ORDER BY alerts.id`,
    [arrayLiteral(fingerprints, (x) => x)],
  );
  return rowsOf(res).map(toUnresolved);
}

function toUnresolved(r: Row): UnresolvedAlert {
  return {
    id: id(r, 'id'),
    fingerprint: text(r, 'fingerprint'),
    kind: text(r, 'kind'),
    title: text(r, 'title'),
    status: oneOf(r, 'status', ALERT_STATUSES),
    caseIds: texts(r, 'case_ids'),
  };
}

/**
 * Sets resolved_at once: true only for the caller that resolved it. An alert still queued is not
 * sent any more (its news is over).
 */
export async function markAlertResolved(db: Knex, id: string, at: Date): Promise<AlertStatus | null> {
  const res = await db.raw(
    `UPDATE alerts a SET resolved_at = ?,
            status = CASE WHEN a.status = 'pending' THEN 'suppressed' ELSE a.status END,
            next_attempt_at = CASE WHEN a.status = 'pending' THEN NULL ELSE a.next_attempt_at END,
            last_error = CASE WHEN a.status = 'pending' THEN coalesce(a.last_error || '; ', '') || 'resolved before delivery' ELSE a.last_error END
      FROM alerts b WHERE a.id = b.id AND a.id = ?::bigint AND a.resolved_at IS NULL
      RETURNING b.status AS status_before`,
    [at, id],
  );
  const [row] = rowsOf(res);
  return row ? oneOf(row, 'status_before', ALERT_STATUSES) : null;
}

/** The one "resolved" message of an alert; the unique resolves_alert_id makes a second one impossible. */
export async function insertResolvedMessage(
  db: Knex,
  m: { resolves: string; fingerprint: string; title: string; payload: unknown; createdAt: Date },
): Promise<boolean> {
  const res = await db.raw(
    // The resolved message belongs to the account of the alert it resolves.
    `INSERT INTO alerts (fingerprint, kind, account_id, title, payload, payload_digest, created_at, status, next_attempt_at, resolves_alert_id, resolved_at)
     SELECT ?, 'resolved', r.account_id, ?, ?::jsonb, '', ?, 'pending', ?, r.id, ? FROM alerts r WHERE r.id = ?::bigint
     ON CONFLICT (resolves_alert_id) DO NOTHING RETURNING id`,
    [m.fingerprint, m.title, JSON.stringify(m.payload), m.createdAt, m.createdAt, m.createdAt, m.resolves],
  );
  return rowsOf(res).length > 0;
}
