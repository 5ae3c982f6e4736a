import type { Knex } from 'knex';
import { count, oneRow, rowCountOf } from './row.ts';
import { bindingsOf, param, sql, type Sql } from './sql-text.ts';

/**
 * The orders of a business day, each with its latest check whenever that check ran: the one
 * selection behind items.csv, open_items.csv, late_changes.csv and what a version records per
 * order. An order never checked has no check columns and the verdict `unchecked`. Amounts and
 * ids are selected as text, times as epoch milliseconds (see reports.ts).
 */

/** A UTC window [from, to) as ISO instants (the queries' parameters `from` and `to`). */
export interface Window {
  from: string;
  to: string;
}

export interface ReportOrderRow {
  /** Null for an unchecked order, as is checked_at_ms. */
  run_id: string | null;
  checked_at_ms: string | null;
  created_at_ms: string;
  direction: string;
  order_id: string;
  merchant_ref: string;
  transaction_ref: string;
  currency: string;
  method: string;
  local_status: string;
  provider_status: string | null;
  provider_category: string | null;
  /** The currency the provider holds the order in (null: no answer, or checked before it was stored). */
  provider_currency: string | null;
  local_amount: string;
  provider_amount: string | null;
  local_paid_amount: string | null;
  provider_paid_amount: string | null;
  local_fee: string | null;
  provider_fee: string | null;
  utr: string | null;
  /** Payouts: the beneficiary's bank code as the order recorded it; payments: null. */
  bank_code: string | null;
  /** When payrecon saw the order become final (epoch ms), null while open. */
  finalized_at_ms: string | null;
  verdict: string;
  mismatch_codes: string;
  reason: string;
}

const [FROM, TO, ZONE] = [param('from'), param('to'), param('zone')];

/**
 * Only one account's rows of table alias `t` (several accounts configured); the parameter `account` is
 * '' (never an account id) for every row, as with one account, so one constant text serves both.
 */
const OF_ACCOUNT = (t = '') => sql`(${param('account')}::text = '' OR ${t}account_id = ${param('account')}::text)`;

/** The `account` parameter of the queries below: '' for every account. */
export const accountParam = (account: string | undefined): { account: string } => ({ account: account ?? '' });

/** The order items.csv lists orders in: direction, merchant_ref (byte order, whatever the database's locale), id. */
const REPORT_ORDER = (t: string) => `${t}.direction, ${t}.merchant_ref COLLATE "C", ${t}.id`;
const EPOCH_MS = (col: string) => `floor(extract(epoch from ${col}) * 1000)::bigint::text`;

/**
 * Orders created in [from, to) of both directions, with their latest check (newest checked_at,
 * then id) through the recon_items_latest index. The local columns are the check's (what was
 * compared), or the order's own when it was never checked. Also exposes order_key (bigint sort
 * key), created_at and codes (text[]) for the queries built on it. `narrow` restricts each
 * direction's orders further (a fragment per direction). Parameters: from, to and the fragments'. `sorted`: the orders are put in
 * REPORT_ORDER before the look-ups, so a cursor in that order starts at once and Postgres looks the
 * checks up while the rows are formatted; sorting the joined rows instead kept the report waiting
 * 5 to 7 s on a million-order day for a sort of wide rows spilled to disk (a cursor never runs in parallel).
 */
function ordersWithLatestCheck(narrow: { payment: Sql; payout: Sql } = { payment: sql``, payout: sql`` }, sorted = false): Sql {
  return sql`SELECT
    c.run_id::text AS run_id, ${EPOCH_MS('c.checked_at')} AS checked_at_ms, ${EPOCH_MS('o.created_at')} AS created_at_ms,
    o.created_at, o.direction, o.id::text AS order_id, o.id AS order_key,
    o.merchant_ref, o.transaction_ref, o.currency, o.method,
    coalesce(c.local_status, o.status) AS local_status, c.provider_status, c.provider_category, c.provider_currency,
    (CASE WHEN c.item_id IS NULL THEN o.amount ELSE c.local_amount END)::text AS local_amount,
    c.provider_amount::text AS provider_amount,
    (CASE WHEN c.item_id IS NULL THEN o.paid_amount ELSE c.local_paid_amount END)::text AS local_paid_amount,
    c.provider_paid_amount::text AS provider_paid_amount,
    (CASE WHEN c.item_id IS NULL THEN o.fee ELSE c.local_fee END)::text AS local_fee,
    c.provider_fee::text AS provider_fee,
    (CASE WHEN c.item_id IS NULL THEN o.utr ELSE coalesce(c.provider_utr, c.local_utr) END) AS utr,
    o.bank_code, ${EPOCH_MS('o.finalized_at')} AS finalized_at_ms,
    coalesce(c.verdict, 'unchecked') AS verdict, coalesce(c.codes, '{}') AS codes,
    coalesce(array_to_string(c.codes, ' '), '') AS mismatch_codes, coalesce(c.reason, '') AS reason
  FROM (${sorted ? 'SELECT * FROM (' : ''}
    SELECT 'payment'::text AS direction, id, merchant_ref, transaction_ref, currency, method, status,
           amount, paid_amount, fee, NULL::text AS utr, NULL::text AS bank_code, finalized_at, created_at
      FROM payment_orders WHERE created_at >= ${FROM}::timestamptz AND created_at < ${TO}::timestamptz AND ${OF_ACCOUNT()} ${narrow.payment}
    UNION ALL
    SELECT 'payout', id, merchant_ref, transaction_ref, currency, method, status,
           amount, NULL::numeric, fee, utr, bank_code, finalized_at, created_at
      FROM payout_orders WHERE created_at >= ${FROM}::timestamptz AND created_at < ${TO}::timestamptz AND ${OF_ACCOUNT()} ${narrow.payout}
  ${sorted ? `) u ORDER BY ${REPORT_ORDER('u')}` : ''}) o
  LEFT JOIN LATERAL (
    SELECT i.id AS item_id, i.run_id, i.checked_at, i.local_status, i.provider_status, i.provider_category, i.provider_currency,
           i.local_amount, i.provider_amount, i.local_paid_amount, i.provider_paid_amount, i.local_fee, i.provider_fee,
           i.local_utr, i.provider_utr, i.verdict, i.codes, i.reason
      FROM recon_items i
     WHERE i.direction = o.direction AND i.order_id = o.id
     ORDER BY i.checked_at DESC, i.id DESC
     LIMIT 1
  ) c ON true`;
}

/**
 * The orders of the window that may be open now: not final or never checked (the *_orders_open
 * indexes), or whose newest check, since the window began, left them open (recon_open, sql/031:
 * one row per open order, so the lookback does not read superseded checks). A superset: the latest
 * check decides. `extra` adds more candidates. Parameters: from, to.
 */
const mayBeOpen = (table: string, direction: string, extra = ''): Sql =>
  sql`AND id IN (
      SELECT id FROM ${table} WHERE created_at >= ${FROM}::timestamptz AND created_at < ${TO}::timestamptz
         AND (status_category IN ('pending', 'unknown') OR last_checked_at IS NULL)
      UNION
      SELECT order_id FROM recon_open WHERE direction = '${direction}' AND checked_at >= ${FROM}::timestamptz
      ${extra})`;

/** A window as the queries' parameters. */
export const windowParams = (w: Window): { from: string; to: string } => ({ from: w.from, to: w.to });

/**
 * The columns a streamed report row carries (ReportOrderRow), named so the helper columns of the
 * selection (created_at, order_key, codes) are not sent: the driver would parse a Date and an
 * array per row for nothing, seconds on a million rows.
 */
const ROW_COLUMNS = (t: string) =>
  [
    'run_id',
    'checked_at_ms',
    'created_at_ms',
    'direction',
    'order_id',
    'merchant_ref',
    'transaction_ref',
    'currency',
    'method',
    'local_status',
    'provider_status',
    'provider_category',
    'provider_currency',
    'local_amount',
    'provider_amount',
    'local_paid_amount',
    'provider_paid_amount',
    'local_fee',
    'provider_fee',
    'utr',
    'bank_code',
    'finalized_at_ms',
    'verdict',
    'mismatch_codes',
    'reason',
  ]
    .map((c) => `${t}.${c}`)
    .join(', ');

/** An order's cases as parallel arrays, oldest id first (null when it has none): the report's case columns. */
export interface OrderCasesColumns {
  case_ids: string[] | null;
  case_states: string[] | null;
  case_resolutions: Array<string | null> | null;
  /** When each was (re)opened, epoch ms as text. */
  case_opened_ms: string[] | null;
}

/**
 * The cases of the row aliased `t` (direction, order_key): one probe of cases_order per order inside
 * the report's own cursor, so no round trip per page holds up the cursor's prefetch. Grouped, so an
 * order with no case (most of a day) gives no row and no aggregate is built for it.
 */
const CASES_OF = (t: string) => `LEFT JOIN LATERAL (
    SELECT array_agg(c.id::text ORDER BY c.id) AS case_ids, array_agg(c.state ORDER BY c.id) AS case_states,
           array_agg(c.resolution ORDER BY c.id) AS case_resolutions,
           array_agg(${EPOCH_MS('c.opened_at')} ORDER BY c.id) AS case_opened_ms
      FROM cases c WHERE c.direction = ${t}.direction AND c.order_id = ${t}.order_key
     GROUP BY c.direction, c.order_id
  ) cs ON true`;
const CASE_COLUMNS = 'cs.case_ids, cs.case_states, cs.case_resolutions, cs.case_opened_ms';

/** In REPORT_ORDER; the outer ORDER BY costs no sort, as the orders come sorted from the inner one. */
const DAY_ITEMS_SQL = sql`SELECT ${ROW_COLUMNS('x')}, ${CASE_COLUMNS} FROM (${ordersWithLatestCheck(undefined, true)}) x ${CASES_OF('x')}
  ORDER BY x.direction, x.merchant_ref COLLATE "C", x.order_key`;

/** An order of an earlier day still needing a person, with its business day in the report's zone. */
export interface OpenItemRow extends ReportOrderRow, Partial<OrderCasesColumns> {
  business_date: string;
}

/**
 * Orders created in [from, to) whose latest check is pending, mismatch or error, or that were
 * never checked: oldest business day first. Parameters: zone, from, to.
 */
const OPEN_ITEMS_SQL = sql`SELECT ${ROW_COLUMNS('y')}, y.business_date, ${CASE_COLUMNS} FROM (
    SELECT x.*, (x.created_at AT TIME ZONE ${ZONE})::date::text AS business_date
      FROM (${ordersWithLatestCheck({ payment: mayBeOpen('payment_orders', 'payment'), payout: mayBeOpen('payout_orders', 'payout') })}) x
  ) y ${CASES_OF('y')}
  WHERE y.verdict IN ('pending', 'mismatch', 'error', 'unchecked')
  ORDER BY y.business_date, y.direction, y.merchant_ref COLLATE "C", y.order_key`;

/** `resolved` is `matched` seen by the run that updated the order: not a change when a later check says matched. */
const AS_MATCHED = (col: string) => `(CASE ${col} WHEN 'resolved' THEN 'matched' ELSE ${col} END)`;

/** Orders a recorded version listed as not consistent (report_version_orders_open): they may have changed too. */
const RECORDED_OPEN = (direction: string) => `UNION
      SELECT ro.order_id FROM report_version_orders ro JOIN recorded r ON r.id = ro.version_id
       WHERE ro.direction = '${direction}' AND ro.verdict NOT IN ('matched', 'resolved')`;

export interface LateChangeRow extends OpenItemRow {
  reported_version: number;
  /** Null when that version did not list the order (imported after it was written). */
  reported_verdict: string | null;
  reported_codes: string | null;
}

/**
 * Orders of earlier days [from, to) whose verdict or codes differ from what the latest version
 * of their own day's report recorded (resolved and matched count as the same). Only orders open
 * now or recorded as open can differ (a consistent order recorded consistent is the same), so
 * only those are looked at. Days with no recorded version are left out: nothing was
 * reported, so nothing changed. Parameters: first_day, end_day (the day after the last; dates), zone, from, to.
 */
const LATE_CHANGES_SQL = sql`WITH recorded AS (
    SELECT DISTINCT ON (business_date) id, business_date, version FROM report_versions
     WHERE orders_recorded AND business_date >= ${param('first_day')}::date AND business_date < ${param('end_day')}::date AND ${OF_ACCOUNT()}
     ORDER BY business_date, version DESC
  )
  SELECT ${ROW_COLUMNS('y')}, y.business_date, r.version AS reported_version, ro.verdict AS reported_verdict,
         array_to_string(ro.codes, ' ') AS reported_codes
    FROM (SELECT x.*, (x.created_at AT TIME ZONE ${ZONE})::date::text AS business_date
            FROM (${ordersWithLatestCheck({ payment: mayBeOpen('payment_orders', 'payment', RECORDED_OPEN('payment')), payout: mayBeOpen('payout_orders', 'payout', RECORDED_OPEN('payout')) })}) x) y
    JOIN recorded r ON r.business_date = y.business_date::date
    LEFT JOIN report_version_orders ro ON ro.version_id = r.id AND ro.direction = y.direction AND ro.order_id = y.order_key
   WHERE ${AS_MATCHED('ro.verdict')} IS DISTINCT FROM ${AS_MATCHED('y.verdict')} OR ro.codes IS DISTINCT FROM y.codes
   ORDER BY y.business_date, y.direction, y.merchant_ref COLLATE "C", y.order_key`;

const COUNT_DAY_ORDERS = sql`SELECT ((SELECT count(*) FROM payment_orders WHERE created_at >= ${FROM}::timestamptz AND created_at < ${TO}::timestamptz AND ${OF_ACCOUNT()})
           + (SELECT count(*) FROM payout_orders WHERE created_at >= ${FROM}::timestamptz AND created_at < ${TO}::timestamptz AND ${OF_ACCOUNT()}))::text AS n`;

/** How many orders the window holds (of `account` only, when given): the rows DAY_ITEMS_SQL gives in the same snapshot. */
export async function countDayOrders(tx: Knex.Transaction, day: Window, account?: string): Promise<number> {
  const values = { ...windowParams(day), ...accountParam(account) };
  return count(oneRow(await tx.raw(COUNT_DAY_ORDERS.text, bindingsOf(COUNT_DAY_ORDERS, values))), 'n');
}

/** provider - local of one money field, when the check found that field's code; else null. */
const MONEY_DIFFERENCE = (code: string, field: string) =>
  `CASE WHEN '${code}' = ANY(x.codes) THEN x.provider_${field}::numeric - x.local_${field}::numeric END`;

/**
 * Records what a version says about each order of its day, from the same selection as its
 * items.csv (same transaction, same snapshot), with its currency and the money its mismatch codes put
 * at stake (sql/051), and marks the version as having recorded them.
 */
const RECORD_VERSION_ORDERS = sql`INSERT INTO report_version_orders (version_id, direction, order_id, verdict, codes, currency, difference, at_risk)
     SELECT ${param('version_id')}::bigint, direction, order_key, verdict, codes, currency,
            CASE WHEN coalesce(d_amount, d_paid, d_fee) IS NOT NULL THEN coalesce(d_amount, 0) + coalesce(d_paid, 0) + coalesce(d_fee, 0) END,
            CASE WHEN coalesce(d_amount, d_paid, d_fee) IS NOT NULL THEN abs(coalesce(d_amount, 0)) + abs(coalesce(d_paid, 0)) + abs(coalesce(d_fee, 0)) END
       FROM (SELECT x.*, ${MONEY_DIFFERENCE('AMOUNT', 'amount')} AS d_amount, ${MONEY_DIFFERENCE('PAID_AMOUNT', 'paid_amount')} AS d_paid,
                    ${MONEY_DIFFERENCE('FEE', 'fee')} AS d_fee
               FROM (${ordersWithLatestCheck()}) x) m`;

export async function recordVersionOrders(tx: Knex.Transaction, versionId: string, day: Window, account?: string): Promise<number> {
  const values = { version_id: versionId, ...windowParams(day), ...accountParam(account) };
  const inserted = rowCountOf(await tx.raw(RECORD_VERSION_ORDERS.text, bindingsOf(RECORD_VERSION_ORDERS, values)));
  await tx.raw('UPDATE report_versions SET orders_recorded = true WHERE id = ?::bigint', [versionId]);
  return inserted;
}

/**
 * Rows per cursor page: a page costs a round trip and its knex and driver overhead, so larger pages
 * cost less CPU per row; up to 1 + PAGES_AHEAD pages are in memory at once. At a million rows 2,000
 * beat 1,000 in paired runs, by 1.5 and 3.5 s (bench/results/report.jsonl, 2026-11-24).
 */
export const REPORT_PAGE_ROWS = 2000;
/** Pages asked for ahead of the one being formatted. */
const PAGES_AHEAD = 2;

/** The streamed report queries by cursor name: the only SQL streamRows runs. */
const REPORT_QUERIES = {
  payrecon_report_items: DAY_ITEMS_SQL,
  payrecon_open_items: OPEN_ITEMS_SQL,
  payrecon_late_changes: LATE_CHANGES_SQL,
} as const;

/**
 * Streams a report query's rows in pages through a server-side cursor: one sort in Postgres,
 * pageSize rows in memory at a time, on PGlite too. tx must be a transaction (a cursor lives inside one).
 */
export async function* streamRows<T>(
  tx: Knex.Transaction,
  cursor: keyof typeof REPORT_QUERIES,
  /** The query's parameters by name (from, to; zone, first_day, end_day where it has them). */
  values: Readonly<Record<string, string>>,
  pageSize = REPORT_PAGE_ROWS,
): AsyncGenerator<T[]> {
  const query = REPORT_QUERIES[cursor];
  const bindings = bindingsOf(query, values);
  // Every row will be fetched: plan for total time, not for the first 10 % (the cursor default).
  await tx.raw('SET LOCAL cursor_tuple_fraction = 1.0');
  // No JIT for the rest of the report's transaction: these plans are index lookups per order,
  // where compiling (seconds on a million-order day, more on a busy machine) gains nothing back.
  await tx.raw('SET LOCAL jit = off');
  await tx.raw(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${query.text}`, bindings);
  // .then() once: a knex builder runs its query again on every .then, a Promise does not.
  const fetchPage = (): Promise<{ rows: T[] }> => {
    const page = tx.raw(`FETCH ${pageSize} FROM ${cursor}`).then((r: { rows: T[] }) => r);
    page.catch(() => undefined); // awaited in its turn; a caller that stops early must not leave it unhandled
    return page;
  };
  // Pages are asked for ahead of the caller: while it formats one, Postgres works on the next and
  // the one after is queued on the connection, so a page that takes Postgres longer than usual is
  // less likely to hold the caller up (at 1M rows, with one page ahead, it waited 9.5 s for pages).
  const ahead = Array.from({ length: PAGES_AHEAD }, fetchPage);
  let last = false;
  try {
    while (ahead.length > 0) {
      const res: { rows: T[] } = await ahead.shift()!;
      last ||= res.rows.length < pageSize;
      if (!last) ahead.push(fetchPage());
      if (res.rows.length > 0) yield res.rows;
    }
  } finally {
    for (const page of ahead) await page.catch(() => undefined);
    await tx.raw(`CLOSE ${cursor}`).catch(() => undefined);
  }
}
