import type { Knex } from 'knex';
import { id, int, rowCountOf, rowsOf, text, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

/**
 * Which report versions the retention removes from disk: a version older than the cutoff that a newer
 * version of its day (of its account: with several, each numbers its own) superseded. Kept whatever their age, each for the reason given:
 * - the newest version of each day (current: what the console, status and the next report compare with);
 * - the newest version of each day that recorded its orders (the late changes of later reports start from it);
 * - a version whose e-mail is still to be sent (`pending`: the retry reads its files);
 * - a version of a day with a case not resolved (occurred on the day, or about an order the version recorded):
 *   the person working the case may open what accounting was sent.
 * The version CURRENT names on disk is kept too (checked by the caller, it is a file).
 * The rule is evaluated again in the statement that marks a version removed, so a version that became
 * needed meanwhile (an e-mail begun) is left alone.
 */
const ELIGIBLE = `v.removed_at IS NULL AND v.created_at < ?::timestamptz AND v.email_status <> 'pending'
  AND EXISTS (SELECT 1 FROM report_versions n WHERE n.account_id = v.account_id AND n.business_date = v.business_date AND n.version > v.version)
  AND (NOT v.orders_recorded
       OR EXISTS (SELECT 1 FROM report_versions n WHERE n.account_id = v.account_id AND n.business_date = v.business_date AND n.version > v.version AND n.orders_recorded))
  AND NOT EXISTS (
    SELECT 1 FROM cases c
     WHERE c.state <> 'resolved'
       AND c.occurred_at >= (v.manifest->'window'->>'from')::timestamptz AND c.occurred_at < (v.manifest->'window'->>'to')::timestamptz)
  AND NOT EXISTS (
    SELECT 1 FROM cases c JOIN report_version_orders r ON r.version_id = v.id AND r.direction = c.direction AND r.order_id = c.order_id
     WHERE c.state <> 'resolved')`;

export interface PrunableVersion {
  id: string;
  businessDate: string;
  version: number;
  /** Where the version was written, as recorded (shown, never deleted: it may be another installation's). */
  directory: string;
  /**
   * Its folder relative to REPORT_DIR (`<date>/vN`, sql/039; `<account>/<date>/vN` for a version whose manifest
   * names its account, as one of several accounts' is written): what prune resolves under its own REPORT_DIR.
   */
  relativeDir: string;
  /** Rows of report_version_orders it recorded. */
  orders: number;
}

/** The version's folder relative to REPORT_DIR: under its account's folder when its manifest names the account it is of. */
const RELATIVE_DIR = `CASE WHEN v.manifest->'account'->>'id' = v.account_id THEN v.account_id || '/' || v.relative_dir ELSE v.relative_dir END AS relative_dir`;

/** A report_versions row as the queries below select it. */
function versionOf(r: Row): Omit<PrunableVersion, 'orders'> {
  return {
    id: id(r, 'id'),
    businessDate: text(r, 'business_date'),
    version: int(r, 'version'),
    directory: text(r, 'directory'),
    relativeDir: text(r, 'relative_dir'),
  };
}

/** The versions the retention would remove now, oldest day first. */
export async function prunableReportVersions(db: Conn, cutoff: Date): Promise<PrunableVersion[]> {
  const res = await db.raw(
    `SELECT v.id::text AS id, v.business_date::text AS business_date, v.version, v.directory, ${RELATIVE_DIR},
            (SELECT count(*)::int FROM report_version_orders r WHERE r.version_id = v.id) AS orders
       FROM report_versions v WHERE ${ELIGIBLE}
      ORDER BY v.business_date, v.version`,
    [cutoff],
  );
  return rowsOf(res).map((r) => ({ ...versionOf(r), orders: int(r, 'orders') }));
}

/**
 * Records the version as removed (and where it was archived), unless it stopped being prunable; true when
 * marked. Its recorded orders no longer count as recorded (a report never compares with it again).
 */
export async function markVersionRemoved(db: Conn, id: string, cutoff: Date, at: Date, archivedTo: string | null): Promise<boolean> {
  const res = await db.raw(
    `UPDATE report_versions v SET removed_at = ?, archived_to = ?, orders_recorded = false WHERE v.id = ?::bigint AND ${ELIGIBLE}`,
    [at, archivedTo, id, cutoff],
  );
  return rowCountOf(res) === 1;
}

/** Removed versions whose recorded orders are not all deleted yet (a prune stopped before the end). */
export async function removedVersionsWithOrders(
  db: Conn,
): Promise<Array<Pick<PrunableVersion, 'id' | 'businessDate' | 'version' | 'directory' | 'relativeDir'>>> {
  const res = await db.raw(
    `SELECT v.id::text AS id, v.business_date::text AS business_date, v.version, v.directory, ${RELATIVE_DIR} FROM report_versions v
      WHERE v.removed_at IS NOT NULL AND EXISTS (SELECT 1 FROM report_version_orders r WHERE r.version_id = v.id)
      ORDER BY v.id`,
  );
  return rowsOf(res).map(versionOf);
}

/** Deletes up to `limit` recorded orders of a removed version; returns how many (0: none left). */
export async function deleteRemovedVersionOrders(db: Conn, versionId: string, limit: number): Promise<number> {
  const res = await db.raw(
    `DELETE FROM report_version_orders r USING (
       SELECT direction, order_id FROM report_version_orders
        WHERE version_id = ?::bigint AND EXISTS (SELECT 1 FROM report_versions v WHERE v.id = ?::bigint AND v.removed_at IS NOT NULL)
        ORDER BY direction, order_id LIMIT ?) d
      WHERE r.version_id = ?::bigint AND r.direction = d.direction AND r.order_id = d.order_id`,
    [versionId, versionId, limit, versionId],
  );
  return rowCountOf(res);
}

/** The version's row as Postgres's row_to_json writes it (the archive's report_version.json). */
export async function versionRowJson(db: Conn, id: string): Promise<string> {
  const res = await db.raw(`SELECT row_to_json(v)::text AS line FROM report_versions v WHERE v.id = ?::bigint`, [id]);
  const [row] = rowsOf(res);
  if (!row) throw new Error(`report version ${id}: not found`);
  return text(row, 'line');
}

/** A page of the version's recorded orders as JSON lines, after the key `after` (direction, order id). */
export async function versionOrdersPage(
  db: Conn,
  versionId: string,
  after: { direction: string; orderId: string } | null,
  limit: number,
): Promise<{ lines: string[]; last: { direction: string; orderId: string } | null }> {
  const res = await db.raw(
    `SELECT row_to_json(r)::text AS line, r.direction, r.order_id::text AS order_id FROM report_version_orders r
      WHERE r.version_id = ?::bigint AND (r.direction, r.order_id) > (?, ?::bigint)
      ORDER BY r.direction, r.order_id LIMIT ?`,
    [versionId, after?.direction ?? '', after?.orderId ?? '0', limit],
  );
  const rows = rowsOf(res);
  const tail = rows.at(-1);
  return {
    lines: rows.map((r) => text(r, 'line')),
    last: tail ? { direction: text(tail, 'direction'), orderId: id(tail, 'order_id') } : null,
  };
}
