import type { Knex } from 'knex';
import { count, date, dateOrNull, oneOf, rowsOf, text } from './row.ts';

/**
 * The steps of one alerting pass (runtime/alerting.ts), a fixed set: each is tried whatever the
 * others did, and each failure is counted here so it reaches `status`, `doctor` and /metrics
 * (payrecon_alerting_failures_total{step}), not only a log line.
 */
export const ALERTING_STEPS = ['raise', 'resolve', 'no_channel', 'summarise', 'deliver'] as const;
export type AlertingStep = (typeof ALERTING_STEPS)[number];

export interface AlertingStepHealth {
  step: AlertingStep;
  failures: number;
  lastFailedAt: Date;
  lastJob: string;
  lastError: string;
  /** The last success after a failure (null: none since); a step failing now has none newer than lastFailedAt. */
  lastOkAt: Date | null;
}

/** Counts one failure of a step; `error` must already be scrubbed of secrets. */
export async function recordAlertingFailure(db: Knex, f: { step: AlertingStep; job: string; error: string; at: Date }): Promise<void> {
  await db.raw(
    `INSERT INTO alerting_health (step, failures, last_failed_at, last_job, last_error) VALUES (?, 1, ?, ?, ?)
     ON CONFLICT (step) DO UPDATE SET failures = alerting_health.failures + 1, last_failed_at = excluded.last_failed_at,
       last_job = excluded.last_job, last_error = excluded.last_error`,
    [f.step, f.at, f.job, f.error.slice(0, 500)],
  );
}

/** A step that worked: marks a failing one recovered (a step that never failed has no row, and gets none). */
export async function recordAlertingOk(db: Knex, step: AlertingStep, at: Date): Promise<void> {
  await db.raw(
    `UPDATE alerting_health SET last_ok_at = ? WHERE step = ? AND (last_ok_at IS NULL OR last_ok_at < last_failed_at) AND last_failed_at <= ?`,
    [at, step, at],
  );
}

/** Every step that has ever failed. */
export async function alertingHealth(db: Knex): Promise<AlertingStepHealth[]> {
  const res = await db.raw(
    `SELECT step, failures::text AS failures, last_failed_at, last_job, last_error, last_ok_at FROM alerting_health ORDER BY step`,
  );
  return rowsOf(res).map((r) => ({
    step: oneOf(r, 'step', ALERTING_STEPS),
    failures: count(r, 'failures'),
    lastFailedAt: date(r, 'last_failed_at'),
    lastJob: text(r, 'last_job'),
    lastError: text(r, 'last_error'),
    lastOkAt: dateOrNull(r, 'last_ok_at'),
  }));
}

/** The steps whose last attempt failed (no success since). */
export const failingSteps = (rows: readonly AlertingStepHealth[]) => rows.filter((r) => !r.lastOkAt || r.lastOkAt < r.lastFailedAt);
