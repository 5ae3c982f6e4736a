import type { Knex } from 'knex';
import { DIRECTIONS, type Direction } from '../domain/types.ts';
import { date, oneOf, rowsOf, text, textOrNull, texts } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** An order a ref search found. */
export interface RefMatch {
  direction: Direction;
  id: string;
  /** Two accounts may each hold an order of one merchantRef (sql/055): the search lists both, each with its account. */
  accountId: string;
  merchantRef: string;
  transactionRef: string;
  currency: string;
  amount: string;
  status: string;
  createdAt: Date;
}

/** LIKE's own characters in a typed piece match themselves, not any character. */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * lower(ref) LIKE pattern (a lower-case pattern), as two halves on sql/035's indexes: a ref already
 * lower case (every UUID ref) matches as written, on its unique index; any other through its partial
 * lower() index. Same rows as `lower(ref) LIKE pattern`, two indexes fewer for every order update.
 */
const refLike = (column: string) => `${column} LIKE ? OR (${column} <> lower(${column}) AND lower(${column}) LIKE ?)`;

/**
 * The ref search as SQL and bindings (EXPLAIN reads the same text in test/ref-search-plan.test.ts).
 *
 * Each table's matches are found through the ref indexes alone, behind an `OFFSET 0` fence, then the
 * few found are ordered by id. Written as one `WHERE ... ORDER BY id LIMIT n`, the planner may walk
 * the primary key in id order and test every row against the LIKEs, hoping to fill the limit early:
 * a walk of the whole table when a piece matches a handful of orders, so the search grew with
 * history (issue 39: 68 ms at 31 days, 242 ms at 120). Its cost now follows the orders matched.
 */
export function refPrefixQuery(piece: string, limit: number, accountId?: string): { sql: string; bindings: Knex.RawBinding[] } {
  const pattern = `${likeLiteral(piece.toLowerCase())}%`;
  // One account's orders: tested on the few the ref indexes found, outside the fence (no account, the text as before).
  const byAccount = accountId === undefined ? '' : ' WHERE m.account_id = ?';
  const one = (direction: Direction, table: string) =>
    `(SELECT '${direction}' AS direction, m.id::text AS id, account_id, merchant_ref, transaction_ref, currency, amount::text AS amount, status, created_at
        FROM (SELECT id, account_id, merchant_ref, transaction_ref, currency, amount, status, created_at FROM ${table}
               WHERE ${refLike('merchant_ref')} OR ${refLike('transaction_ref')} OFFSET 0) AS m${byAccount}
       ORDER BY m.id LIMIT ?)`;
  const patterns: Knex.RawBinding[] = [pattern, pattern, pattern, pattern, ...(accountId === undefined ? [] : [accountId])];
  return {
    sql: `${one('payment', 'payment_orders')} UNION ALL ${one('payout', 'payout_orders')} LIMIT ?`,
    bindings: [...patterns, limit, ...patterns, limit, limit],
  };
}

/**
 * Orders whose merchant or transaction ref starts with `piece`, in any case, payments then payouts,
 * the lowest ids first, at most `limit`. The caller checks the piece's length.
 */
export async function ordersByRefPrefix(db: Conn, piece: string, limit: number, accountId?: string): Promise<RefMatch[]> {
  const q = refPrefixQuery(piece, limit, accountId);
  const res = await db.raw(q.sql, q.bindings);
  return rowsOf(res).map((r) => ({
    direction: oneOf(r, 'direction', DIRECTIONS),
    id: text(r, 'id'),
    accountId: text(r, 'account_id'),
    merchantRef: text(r, 'merchant_ref'),
    transactionRef: text(r, 'transaction_ref'),
    currency: text(r, 'currency'),
    amount: text(r, 'amount'),
    status: text(r, 'status'),
    createdAt: date(r, 'created_at'),
  }));
}

/** The account an order belongs to (the order page names it: a merchantRef may be two accounts' orders, sql/055). */
export async function accountOfOrder(db: Conn, direction: Direction, orderId: string): Promise<string | null> {
  const table = direction === 'payment' ? 'payment_orders' : 'payout_orders';
  const res = await db.raw(`SELECT account_id FROM ${table} WHERE id = ?::bigint`, [orderId]);
  const [row] = rowsOf(res);
  return row ? text(row, 'account_id') : null;
}

/** A webhook notification about an order, as the order page lists them. */
export interface OrderNotification {
  id: string;
  receivedAt: Date;
  status: string | null;
  amount: string | null;
  fee: string | null;
  deliveries: number;
  confirmation: string;
  confirmationNote: string | null;
}

export async function notificationsOfOrder(db: Conn, direction: Direction, transactionRef: string): Promise<OrderNotification[]> {
  const res = await db.raw(
    `SELECT id::text AS id, received_at, status, amount::text AS amount, fee::text AS fee, deliveries, confirmation, confirmation_note
       FROM webhook_events WHERE transaction_ref = ? AND direction = ? ORDER BY received_at, id LIMIT 200`,
    [transactionRef, direction],
  );
  return rowsOf(res).map((r) => ({
    id: text(r, 'id'),
    receivedAt: date(r, 'received_at'),
    status: textOrNull(r, 'status'),
    amount: textOrNull(r, 'amount'),
    fee: textOrNull(r, 'fee'),
    deliveries: Number(r.deliveries),
    confirmation: text(r, 'confirmation'),
    confirmationNote: textOrNull(r, 'confirmation_note'),
  }));
}

/** A case about an order (any state). */
export interface OrderCase {
  id: string;
  code: string;
  state: string;
  resolution: string | null;
  openedAt: Date;
}

export async function casesOfOrder(db: Conn, direction: Direction, orderId: string): Promise<OrderCase[]> {
  const res = await db.raw(
    `SELECT id::text AS id, code, state, resolution, opened_at FROM cases WHERE direction = ? AND order_id = ?::bigint ORDER BY id`,
    [direction, orderId],
  );
  return rowsOf(res).map((r) => ({
    id: text(r, 'id'),
    code: text(r, 'code'),
    state: text(r, 'state'),
    resolution: textOrNull(r, 'resolution'),
    openedAt: date(r, 'opened_at'),
  }));
}

/** A report version that recorded the order, with what it said. */
export interface OrderInVersion {
  versionId: string;
  businessDate: string;
  version: number;
  verdict: string;
  codes: string[];
}

export async function versionsOfOrder(db: Conn, direction: Direction, orderId: string): Promise<OrderInVersion[]> {
  const res = await db.raw(
    `SELECT v.id::text AS version_id, v.business_date::text AS business_date, v.version, o.verdict, o.codes
       FROM report_version_orders o JOIN report_versions v ON v.id = o.version_id
      WHERE o.direction = ? AND o.order_id = ?::bigint
      ORDER BY v.business_date DESC, v.version DESC LIMIT 200`,
    [direction, orderId],
  );
  return rowsOf(res).map((r) => ({
    versionId: text(r, 'version_id'),
    businessDate: text(r, 'business_date'),
    version: Number(r.version),
    verdict: text(r, 'verdict'),
    codes: texts(r, 'codes'),
  }));
}
