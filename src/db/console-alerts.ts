import type { Knex } from 'knex';
import { date, rowsOf, text, texts } from './row.ts';

/** Open alerts of one fingerprint merged into one row: how many, since when, the latest's title, every case behind them. */
export interface MergedAlert {
  kind: string;
  title: string;
  status: string;
  count: number;
  firstAt: Date;
  lastAt: Date;
  attempts: number;
  caseIds: string[];
}

/** The open alerts (as `payrecon status` selects them), duplicates of one fingerprint merged; newest first. */
export async function mergedOpenAlerts(db: Knex, now: Date, limit = 50): Promise<MergedAlert[]> {
  const res = await db.raw(
    `WITH open AS (
       SELECT id, fingerprint, kind, title, status, created_at, attempts, case_ids FROM alerts
        WHERE resolved_at IS NULL AND status IN ('pending', 'sent', 'undeliverable') AND kind <> 'resolved' AND created_at <= ?),
     ids AS (SELECT fingerprint, array_agg(DISTINCT c::text) AS case_ids FROM open, unnest(case_ids) AS c GROUP BY fingerprint)
     SELECT (array_agg(o.kind ORDER BY o.created_at DESC, o.id DESC))[1] AS kind,
            (array_agg(o.title ORDER BY o.created_at DESC, o.id DESC))[1] AS title,
            (array_agg(o.status ORDER BY o.created_at DESC, o.id DESC))[1] AS status,
            count(*)::int AS n, min(o.created_at) AS first_at, max(o.created_at) AS last_at, sum(o.attempts)::int AS attempts,
            ids.case_ids
       FROM open o LEFT JOIN ids ON ids.fingerprint = o.fingerprint
      GROUP BY o.fingerprint, ids.case_ids
      ORDER BY max(o.created_at) DESC
      LIMIT ?`,
    [now, limit],
  );
  return rowsOf(res).map((r) => ({
    kind: text(r, 'kind'),
    title: text(r, 'title'),
    status: text(r, 'status'),
    count: Number(r.n),
    firstAt: date(r, 'first_at'),
    lastAt: date(r, 'last_at'),
    attempts: Number(r.attempts),
    caseIds: texts(r, 'case_ids').sort((a, b) => Number(a) - Number(b)),
  }));
}
