import type { Knex } from 'knex';
import { CURRENCIES, type Currency } from '../money/decimal.ts';
import type { PreviousRate } from '../recon/rates.ts';
import { decimal } from './amounts.ts';
import { arrayLiteral } from './unnest.ts';
import { date, dateOrNull, oneOf, oneRow, rowsOf, text, textOrNull, texts, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

export interface NewBalanceSnapshot {
  runId: string | null;
  currency: Currency;
  available: string;
  pending: string;
  held: string;
  credit: string;
  /** When the balance answer arrived. */
  takenAt: Date;
  /** When the balance was asked for (null for snapshots stored before it was recorded: taken as takenAt). */
  requestedAt?: Date | null;
  /** The account whose balance this is; left out: the column's default ('default'). */
  accountId?: string;
}

/** One stored balance snapshot; amounts are the decimal text the provider sent. */
export interface BalanceSnapshot extends NewBalanceSnapshot {
  id: string;
}

export interface RateSnapshot {
  id: string;
  runId: string | null;
  currency: Currency;
  deposit: string;
  withdraw: string;
  takenAt: Date;
  flags: string[];
}

export interface NewRateSnapshot {
  runId: string | null;
  currency: Currency;
  deposit: string;
  withdraw: string;
  takenAt: Date;
  flags: readonly string[];
  /** The account whose rate this is; left out: the column's default ('default'). */
  accountId?: string;
}

// ::text keeps numeric scale exactly as stored ("4850000.00"), on both engines.
const BALANCE_COLUMNS = `id::text AS id, run_id::text AS run_id, currency, available::text AS available, pending::text AS pending,
  held::text AS held, credit::text AS credit, taken_at, requested_at`;

const toBalance = (r: Row): BalanceSnapshot => ({
  id: text(r, 'id'),
  runId: textOrNull(r, 'run_id'),
  currency: oneOf(r, 'currency', CURRENCIES),
  available: text(r, 'available'),
  pending: text(r, 'pending'),
  held: text(r, 'held'),
  credit: text(r, 'credit'),
  takenAt: date(r, 'taken_at'),
  requestedAt: dateOrNull(r, 'requested_at'),
});

// With several accounts each account's snapshots are a history of their own; null (one account): no filter.
const OF_ACCOUNT = '(?::text IS NULL OR account_id = ?::text)';
const ofAccount = (account: string | undefined): [string | null, string | null] => [account ?? null, account ?? null];

/** The balance reading of a snapshot: from request to answer. */
export const readingOf = (s: BalanceSnapshot): { from: Date; to: Date } => ({ from: s.requestedAt ?? s.takenAt, to: s.takenAt });

export async function insertBalanceSnapshot(db: Conn, s: NewBalanceSnapshot): Promise<BalanceSnapshot> {
  const res = await db.raw(
    `INSERT INTO balance_snapshots (run_id, currency, available, pending, held, credit, taken_at, requested_at, account_id)
     VALUES (?, ?, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?, ?, coalesce(?::text, 'default')) RETURNING ${BALANCE_COLUMNS}`,
    [
      s.runId,
      s.currency,
      decimal(s.available, 'available'),
      decimal(s.pending, 'pending'),
      decimal(s.held, 'held'),
      decimal(s.credit, 'credit'),
      s.takenAt,
      s.requestedAt ?? null,
      s.accountId ?? null,
    ],
  );
  return toBalance(oneRow(res));
}

/** The snapshot just before `snapshot` for its currency (taken_at, then id, break ties): the opening of a consecutive pair. */
export async function previousBalanceSnapshot(
  db: Conn,
  snapshot: Pick<BalanceSnapshot, 'id' | 'currency' | 'takenAt'>,
  account?: string,
): Promise<BalanceSnapshot | null> {
  const res = await db.raw(
    `SELECT ${BALANCE_COLUMNS} FROM balance_snapshots
      WHERE currency = ? AND (taken_at < ? OR (taken_at = ? AND id < ?::bigint)) AND ${OF_ACCOUNT}
      ORDER BY taken_at DESC, id DESC LIMIT 1`,
    [snapshot.currency, snapshot.takenAt, snapshot.takenAt, snapshot.id, ...ofAccount(account)],
  );
  return rowsOf(res).map(toBalance)[0] ?? null;
}

/**
 * The windows of a currency whose judgement (balance_checks) stands as drift beyond tolerance, with
 * a closing snapshot taken at or after `since`, oldest first, as their two snapshots: the roll-forward
 * judges them again when orders checked since may explain them (issue 43: an order recorded, or first
 * answered for by the provider, after the snapshot that closed the window of its finality).
 */
export async function unexplainedWindows(
  db: Conn,
  currency: Currency,
  since: Date,
  account?: string,
): Promise<Array<{ opening: BalanceSnapshot; closing: BalanceSnapshot; drift: string }>> {
  const res = await db.raw(
    `SELECT b.opening_snapshot_id::text AS opening_id, b.closing_snapshot_id::text AS closing_id, b.drift::text AS drift
       FROM balance_checks b JOIN balance_snapshots c ON c.id = b.closing_snapshot_id
      WHERE b.currency = ? AND NOT b.within_tolerance AND c.taken_at >= ? AND (?::text IS NULL OR c.account_id = ?::text)
      ORDER BY c.taken_at, c.id`,
    [currency, since, ...ofAccount(account)],
  );
  const pairs = rowsOf(res).map((r) => ({ opening: text(r, 'opening_id'), closing: text(r, 'closing_id'), drift: text(r, 'drift') }));
  if (pairs.length === 0) return [];
  const ids = [...new Set(pairs.flatMap((p) => [p.opening, p.closing]))];
  const snaps = await db.raw(`SELECT ${BALANCE_COLUMNS} FROM balance_snapshots WHERE id = ANY(?::int8[])`, [
    arrayLiteral(ids, (id) => id, 'id'),
  ]);
  const byId = new Map(rowsOf(snaps).map((r) => [text(r, 'id'), toBalance(r)]));
  return pairs.map((p) => ({ opening: byId.get(p.opening)!, closing: byId.get(p.closing)!, drift: p.drift }));
}

/**
 * The snapshots bounding a day [from, to) of a currency: `first` is the opening (the last snapshot
 * before `from`, or on a fresh database the day's first), `last` the day's last; null when none.
 */
export async function boundaryBalanceSnapshots(
  db: Conn,
  currency: Currency,
  from: Date,
  to: Date,
  /** Only this account's snapshots (several accounts configured); undefined: every one, as with one account. */
  account?: string,
): Promise<{ first: BalanceSnapshot | null; last: BalanceSnapshot | null }> {
  const one = async (where: string, order: 'ASC' | 'DESC', bindings: Date[]): Promise<BalanceSnapshot | null> => {
    const res = await db.raw(
      `SELECT ${BALANCE_COLUMNS} FROM balance_snapshots
        WHERE currency = ? AND ${OF_ACCOUNT} AND ${where}
        ORDER BY taken_at ${order}, id ${order} LIMIT 1`,
      [currency, ...ofAccount(account), ...bindings],
    );
    return rowsOf(res).map(toBalance)[0] ?? null;
  };
  // Days tile: D opens where D−1 closed (the last snapshot before D's start, which is D−1's closing
  // as [from, to) puts a snapshot at exactly `from` in D); only a fresh database opens on D's first.
  const before = await one('taken_at < ?', 'DESC', [from]);
  const first = before ?? (await one('taken_at >= ? AND taken_at < ?', 'ASC', [from, to]));
  const last = await one('taken_at >= ? AND taken_at < ?', 'DESC', [from, to]);
  return { first, last };
}

export async function insertRateSnapshot(db: Conn, s: NewRateSnapshot): Promise<RateSnapshot> {
  const res = await db.raw(
    `INSERT INTO rate_snapshots (run_id, currency, deposit, withdraw, taken_at, flags, account_id)
     VALUES (?, ?, ?::numeric, ?::numeric, ?, ?::text[], coalesce(?::text, 'default'))
     RETURNING id::text AS id, run_id::text AS run_id, currency, deposit::text AS deposit, withdraw::text AS withdraw, taken_at, flags`,
    [s.runId, s.currency, decimal(s.deposit, 'deposit'), decimal(s.withdraw, 'withdraw'), s.takenAt, [...s.flags], s.accountId ?? null],
  );
  const r = oneRow(res);
  return {
    id: text(r, 'id'),
    runId: textOrNull(r, 'run_id'),
    currency: oneOf(r, 'currency', CURRENCIES),
    deposit: text(r, 'deposit'),
    withdraw: text(r, 'withdraw'),
    takenAt: date(r, 'taken_at'),
    flags: texts(r, 'flags'),
  };
}

/**
 * The latest rate snapshot before `before`, with the time its value last changed: the first
 * snapshot after the most recent one holding other figures (compared as numbers, so 86.50 = 86.5).
 * Derived from the history rather than stored, so no extra column is needed.
 */
export async function previousRate(db: Conn, currency: Currency, before: Date, account?: string): Promise<PreviousRate | null> {
  const res = await db.raw(
    `WITH prev AS (
       SELECT deposit, withdraw, taken_at FROM rate_snapshots
        WHERE currency = ? AND taken_at < ? AND ${OF_ACCOUNT} ORDER BY taken_at DESC, id DESC LIMIT 1
     ),
     changed AS (
       SELECT max(r.taken_at) AS at FROM rate_snapshots r, prev
        WHERE r.currency = ? AND r.taken_at < prev.taken_at AND (r.deposit <> prev.deposit OR r.withdraw <> prev.withdraw)
          AND (?::text IS NULL OR r.account_id = ?::text)
     )
     SELECT prev.deposit::text AS deposit, prev.withdraw::text AS withdraw, prev.taken_at,
            (SELECT min(r.taken_at) FROM rate_snapshots r, changed
              WHERE r.currency = ? AND r.taken_at > coalesce(changed.at, '-infinity'::timestamptz) AND r.taken_at <= prev.taken_at
                AND (?::text IS NULL OR r.account_id = ?::text)) AS unchanged_since
       FROM prev`,
    [currency, before, ...ofAccount(account), currency, ...ofAccount(account), currency, ...ofAccount(account)],
  );
  const [r] = rowsOf(res);
  return r
    ? {
        deposit: text(r, 'deposit'),
        withdraw: text(r, 'withdraw'),
        takenAt: date(r, 'taken_at'),
        unchangedSince: date(r, 'unchanged_since'),
      }
    : null;
}
