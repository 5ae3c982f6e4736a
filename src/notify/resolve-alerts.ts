import type { Db } from '../db/connect.ts';
import {
  alertsWithCausesCleared,
  insertResolvedMessage,
  markAlertResolved,
  unresolvedAlertsOf,
  type UnresolvedAlert,
} from '../db/alerts.ts';
import { alertFingerprint } from './fingerprint.ts';

/**
 * Alerts belong to their cause. When it clears (every case behind the alert resolved, the job that
 * failed completed, the flagged rate normal again) the alert gets resolved_at, and whoever was told
 * (the alert was sent, or summarised in a sent summary) is told once more: one "resolved" message, queued
 * like any alert. An alert never delivered (pending, undeliverable) is dropped instead: its news is over
 * before anyone heard it.
 */

/** A cause that is not a case, identified by the alert it raised. */
export interface ClearedCause {
  kind: string;
  fingerprintParts: readonly string[];
  /** Why it cleared, for the resolved message. */
  why: string;
  /** The account whose cause cleared; unset: "default". */
  accountId?: string;
}

/** The causes a job run that completed has cleared: its own earlier failures (the provider is back), a stalled holder (the lock was free again). */
export function jobCompleted(job: string): ClearedCause[] {
  return [
    ...(['failed', 'credentials', 'provider_unavailable', 'interrupted'] as const).map((status) => ({
      kind: 'run_failed',
      fingerprintParts: [job, status],
      why: `${job} completed again`,
    })),
    { kind: 'run_stalled', fingerprintParts: [job], why: `${job} completed again` },
  ];
}

/** Resolves every alert whose cases are all resolved, and the alerts of the given cleared causes. Returns the ids resolved. */
export async function resolveClearedAlerts(db: Db, now: Date, cleared: readonly ClearedCause[] = []): Promise<string[]> {
  const resolved: string[] = [];
  for (const alert of await alertsWithCausesCleared(db.knex)) {
    const why = alert.caseIds.length === 1 ? `case #${alert.caseIds[0]} resolved` : `all ${alert.caseIds.length} cases behind it resolved`;
    if (await resolveAlert(db, alert, why, now)) resolved.push(alert.id);
  }
  for (const cause of cleared) {
    for (const alert of await unresolvedAlertsOf(db.knex, [alertFingerprint(cause.kind, cause.fingerprintParts, cause.accountId)])) {
      if (await resolveAlert(db, alert, cause.why, now)) resolved.push(alert.id);
    }
  }
  return resolved;
}

/** One transaction: resolved_at set once, and the resolved message queued only by the caller that set it. */
async function resolveAlert(db: Db, alert: UnresolvedAlert, why: string, now: Date): Promise<boolean> {
  return db.knex.transaction(async (tx) => {
    const before = await markAlertResolved(tx, alert.id, now);
    if (before === null) return false;
    // Whoever was told hears it cleared: sent on its own, or told in a stale-news summary.
    if (before === 'sent' || before === 'summarised') {
      await insertResolvedMessage(tx, {
        resolves: alert.id,
        fingerprint: alertFingerprint('resolved', [alert.fingerprint]),
        title: `resolved: ${alert.title}`,
        payload: {
          summary: `Resolved: ${why}.`,
          resolvedAlert: alert.id,
          kind: alert.kind,
          ...(alert.caseIds.length ? { cases: alert.caseIds } : {}),
        },
        createdAt: now,
        accountId: alert.accountId,
      });
    }
    return true;
  });
}
