import type { Knex } from 'knex';
import { queueCounts, queueSchemaVersion, type QueueCount } from './queue.ts';
import { count, date, dateOrNull, int, oneRow, rowsOf, text, textOrNull } from './row.ts';

/** What /metrics reads from the database on each scrape: small aggregate queries on indexed columns. */
export interface OpsGaugeRows {
  openCases: { account: string; code: string; currency: string; count: number; oldestOpenedAt: Date }[];
  /** The latest roll-forward check of each account's currency checked at all: drift as decimal text. */
  drift: { account: string; currency: string; drift: string }[];
  /** Per account with any pending. */
  emailsPending: { account: string; count: number }[];
  /** Latest completed run of each job, per account. */
  lastSuccess: { account: string; job: string; at: Date }[];
  /** Failures of each alerting step so far (alerting_health), and the latest failure of any. */
  alertingFailures: { step: string; failures: number }[];
  alertingLastFailure: Date | null;
  /** When the first migration was applied: the start of every job's watch (null on an empty table). */
  installedAt: Date | null;
  /** The worker queue by task, account and state; empty without its schema (SCHEDULE_MODE=inprocess). */
  queue: QueueCount[];
}

/**
 * One read-only transaction with a short statement timeout, so a slow or locked database makes the
 * scrape give up quickly instead of piling up behind it.
 */
export async function readOpsGauges(db: Knex, statementTimeoutMs: number, queueSchema?: string): Promise<OpsGaugeRows> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT set_config('statement_timeout', ?, true)`, [String(Math.max(1, Math.floor(statementTimeoutMs)))]);
    const cases = await trx.raw(
      `SELECT account_id, code, currency, count(*)::int AS n, min(opened_at) AS oldest FROM cases WHERE state = 'open'
        GROUP BY account_id, code, currency`,
    );
    const drift = await trx.raw(
      `SELECT DISTINCT ON (account_id, currency) account_id, currency, drift::text AS drift
           FROM balance_checks ORDER BY account_id, currency, checked_at DESC, id DESC`,
    );
    const emails = await trx.raw(
      `SELECT account_id, count(*)::int AS n FROM report_versions WHERE email_status = 'pending' GROUP BY account_id`,
    );
    const success = await trx.raw(
      `SELECT account_id, job, max(finished_at) AS at FROM job_runs WHERE status = 'completed' AND NOT dry_run GROUP BY account_id, job`,
    );
    const alerting = await trx.raw(`SELECT step, failures::text AS failures, last_failed_at FROM alerting_health`);
    const alertingRows = rowsOf(alerting);
    // knex's own table: migration_time of the first file is the install; retention never prunes it.
    const installed = await trx.raw(`SELECT min(migration_time) AS at FROM knex_migrations`);
    const queue = queueSchema && (await queueSchemaVersion(trx, queueSchema)) !== null ? await queueCounts(trx, queueSchema) : [];
    return {
      // A case about no currency (a bank code, say) is labelled "none" rather than dropped.
      openCases: rowsOf(cases).map((r) => ({
        account: text(r, 'account_id'),
        code: text(r, 'code'),
        currency: textOrNull(r, 'currency') ?? 'none',
        count: int(r, 'n'),
        oldestOpenedAt: date(r, 'oldest'),
      })),
      drift: rowsOf(drift).map((r) => ({ account: text(r, 'account_id'), currency: text(r, 'currency'), drift: text(r, 'drift') })),
      emailsPending: rowsOf(emails).map((r) => ({ account: text(r, 'account_id'), count: int(r, 'n') })),
      // A job with no completed run has none: max() over no rows is a NULL time.
      lastSuccess: rowsOf(success).flatMap((r) => {
        const at = dateOrNull(r, 'at');
        return at ? [{ account: text(r, 'account_id'), job: text(r, 'job'), at }] : [];
      }),
      alertingFailures: alertingRows.map((r) => ({ step: text(r, 'step'), failures: count(r, 'failures') })),
      alertingLastFailure: alertingRows.reduce<Date | null>((max, r) => {
        const at = date(r, 'last_failed_at');
        return max && max >= at ? max : at;
      }, null),
      installedAt: dateOrNull(oneRow(installed), 'at'),
      queue,
    };
  });
}

/** Readiness: the database answers within the timeout. */
export async function pingDatabase(db: Knex, statementTimeoutMs: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw(`SELECT set_config('statement_timeout', ?, true)`, [String(Math.max(1, Math.floor(statementTimeoutMs)))]);
    await trx.raw('SELECT 1');
  });
}
