import type { Knex } from 'knex';

/** What /metrics reads from the database on each scrape: small aggregate queries on indexed columns. */
export interface OpsGaugeRows {
  openCases: { code: string; currency: string; count: number }[];
  /** The latest roll-forward check of each currency checked at all: drift as decimal text. */
  drift: { currency: string; drift: string }[];
  emailsPending: number;
  /** Latest completed run of each job. */
  lastSuccess: { job: string; at: Date }[];
}

/**
 * One read-only transaction with a short statement timeout, so a slow or locked database makes the
 * scrape give up quickly instead of piling up behind it.
 */
export async function readOpsGauges(db: Knex, statementTimeoutMs: number): Promise<OpsGaugeRows> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT set_config('statement_timeout', ?, true)`, [String(Math.max(1, Math.floor(statementTimeoutMs)))]);
    const cases = await trx.raw<{ rows: { code: string; currency: string | null; n: number }[] }>(
      `SELECT code, currency, count(*)::int AS n FROM cases WHERE state = 'open' GROUP BY code, currency`,
    );
    const drift = await trx.raw<{ rows: { currency: string; drift: string }[] }>(
      `SELECT DISTINCT ON (currency) currency, drift::text AS drift
           FROM balance_checks ORDER BY currency, checked_at DESC, id DESC`,
    );
    const emails = await trx.raw<{ rows: { n: number }[] }>(
      `SELECT count(*)::int AS n FROM report_versions WHERE email_status = 'pending'`,
    );
    const success = await trx.raw<{ rows: { job: string; at: Date }[] }>(
      `SELECT job, max(finished_at) AS at FROM job_runs WHERE status = 'completed' AND NOT dry_run GROUP BY job`,
    );
    return {
      // A case about no currency (a bank code, say) is labelled "none" rather than dropped.
      openCases: cases.rows.map((r) => ({ code: r.code, currency: r.currency ?? 'none', count: r.n })),
      drift: drift.rows,
      emailsPending: emails.rows[0]?.n ?? 0,
      lastSuccess: success.rows.filter((r) => r.at !== null),
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
