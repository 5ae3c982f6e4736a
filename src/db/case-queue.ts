import type { Knex } from 'knex';
import { COLUMNS, toCase, type StoredCase } from './cases.ts';
import { id, int, oneRow, rowsOf, text, type Row } from './row.ts';
import { caseWhere, type CaseFilter } from './case-filter.ts';

type Conn = Knex | Knex.Transaction;

/** The queue's orders: oldest (re)opened first, or largest amount at risk in USDT first (ties oldest first, none at risk last). */
export const CASE_SORTS = ['age', 'risk'] as const;
export type CaseSort = (typeof CASE_SORTS)[number];

/**
 * Where a page starts: the sort keys and id of the row before it (after) or after it (before), as
 * one opaque token. Keyset, not offset: page 500 costs what page 1 costs.
 */
interface Position {
  sort: CaseSort;
  keys: string[];
  id: string;
  /** The row's place in the queue when the cursor was made (1-based): for "showing 101–200". */
  place: number;
}

interface KeyPart {
  expr: string;
  cast: string;
  dir: 'ASC' | 'DESC';
  /** What a key read back from a cursor must look like. */
  shape: RegExp;
}

// opened_at as Postgres prints it (microseconds and offset), so it reads back exactly.
const OPENED: KeyPart = {
  expr: 'opened_at',
  cast: 'timestamptz',
  dir: 'ASC',
  shape: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d){0,2}$/,
};
// risk: the USDT value at stake with none as -1, largest first, ties oldest first: one index's order
// (sql/041_case_money.sql). The id breaks the last ties.
const KEYS: Record<CaseSort, readonly KeyPart[]> = {
  age: [OPENED],
  risk: [{ expr: 'coalesce(at_risk_usdt, -1)', cast: 'numeric', dir: 'DESC', shape: /^-?\d{1,30}(\.\d{1,18})?$/ }, OPENED],
};
const ID: KeyPart = { expr: 'cases.id', cast: 'bigint', dir: 'ASC', shape: /^\d{1,18}$/ };

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.sort, p.keys, p.id, p.place])).toString('base64url');
}

/** The position in a cursor; an error naming the option when it is not one of ours. */
export function decodeCursor(token: string, sort: CaseSort): Position {
  const bad = () => new Error('cursor: not a cursor payrecon gave (copy the "next" value of the previous page), or of another sort order');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== sort) throw bad();
  const [, keys, id, place]: unknown[] = parsed;
  const parts = KEYS[sort];
  if (!Array.isArray(keys) || keys.length !== parts.length) throw bad();
  if (!keys.every((k: unknown, i) => typeof k === 'string' && parts[i].shape.test(k))) throw bad();
  if (typeof id !== 'string' || !ID.shape.test(id)) throw bad();
  if (typeof place !== 'number' || !Number.isSafeInteger(place) || place < 1) throw bad();
  return { sort, keys: keys as string[], id, place };
}

/**
 * The rows strictly beyond a position in the walk's direction, for keys of mixed directions:
 * k1 op v1 OR (k1 = v1 AND (k2 op v2 OR (...))), behind the first key's range, which an index scan
 * starts from.
 */
function beyond(parts: readonly KeyPart[], values: readonly string[], reversed: boolean): { sql: string; args: string[] } {
  const op = (p: KeyPart) => ((p.dir === 'DESC') !== reversed ? '<' : '>');
  const from = (i: number): { sql: string; args: string[] } => {
    const p = parts[i];
    const here = `${p.expr} ${op(p)} ?::${p.cast}`;
    if (i === parts.length - 1) return { sql: here, args: [values[i]] };
    const rest = from(i + 1);
    return { sql: `(${here} OR (${p.expr} = ?::${p.cast} AND ${rest.sql}))`, args: [values[i], values[i], ...rest.args] };
  };
  const all = from(0);
  const first = parts[0];
  return { sql: `${first.expr} ${op(first)}= ?::${first.cast} AND ${all.sql}`, args: [values[0], ...all.args] };
}

export interface PageRequest {
  sort: CaseSort;
  limit: number;
  /** The page after this cursor (a page's `next`). */
  after?: string;
  /** The page before this cursor (a page's `prev`); 'end' for the last page. */
  before?: string;
  /**
   * The Nth page (1-based) from the start, for a person who says "page 7": an OFFSET, so deep pages
   * cost more than a cursor's; alone, not with after or before.
   */
  page?: number;
}

export interface CasePage {
  /** Every match of the filter, not only this page's. */
  total: number;
  /** The first case's place in the queue, 1-based (0 when the page is empty). */
  first: number;
  cases: StoredCase[];
  /** The cursor of the next page; null on the last one. */
  next: string | null;
  /** The cursor of the previous page; null on the first one. */
  prev: string | null;
}

/** One page of the filtered queue and the total of matches, in two index-driven statements. */
export async function selectCasePage(db: Conn, f: CaseFilter, r: PageRequest): Promise<CasePage> {
  // The last page's size follows from the total; any other page is read alongside the count.
  if (r.before === 'end') {
    const total = await countCases(db, f);
    return { total, ...(await keysetPage(db, f, r, total)) };
  }
  const [total, page] = await Promise.all([countCases(db, f), keysetPage(db, f, r)]);
  return { total, ...page };
}

export async function countCases(db: Conn, f: CaseFilter): Promise<number> {
  const w = caseWhere(f);
  const res = await db.raw(`SELECT count(*)::int AS n FROM cases ${w.sql}`, w.args);
  return int(oneRow(res), 'n');
}

/** Every match, page by page (an export, a bulk action): memory holds one page at a time. */
export async function* eachCase(db: Conn, f: CaseFilter, sort: CaseSort = 'age', pageSize = 1000): AsyncGenerator<StoredCase> {
  let after: string | undefined;
  for (;;) {
    const page = await keysetPage(db, f, { sort, limit: pageSize, after });
    yield* page.cases;
    if (!page.next) return;
    after = page.next;
  }
}

/**
 * A page's SQL: the filter, the position after (or, backward, before) a cursor, the sort's keys.
 * With a ref piece, the matches are found first through the cases' ref indexes behind an `OFFSET 0`
 * fence and only they are sorted: else the planner may walk the queue's age or risk index and test
 * every case against the LIKEs, a cost that grows with the queue (EXPLAIN: test/ref-search-plan.test.ts).
 */
export function casePageQuery(
  f: CaseFilter,
  sort: CaseSort,
  limit: number,
  at: { from?: Position | null; backward?: boolean; offset?: number } = {},
): { sql: string; bindings: Knex.RawBinding[] } {
  const w = caseWhere(f);
  const parts = [...KEYS[sort], ID];
  const backward = at.backward ?? false;
  const fenced = f.ref !== undefined;
  const conds = w.sql && !fenced ? [w.sql.slice('WHERE '.length)] : [];
  const args: Knex.RawBinding[] = fenced ? [] : [...w.args];
  if (at.from) {
    const b = beyond(parts, [...at.from.keys, at.from.id], backward);
    conds.push(b.sql);
    args.push(...b.args);
  }
  // Backward, every key walks the other way; the caller turns the page round.
  const ORDER = parts.map((p) => `${p.expr} ${(p.dir === 'DESC') !== backward ? 'DESC' : 'ASC'}`).join(', ');
  const WHERE = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  const FROM = fenced ? `(SELECT * FROM cases ${w.sql} OFFSET 0) AS cases` : 'cases';
  const KEYS_SQL = KEYS[sort].map((p, i) => `(${p.expr})::text AS sort_key_${i}`).join(', ');
  // cases.id, qualified: a bare `id` is the text alias of COLUMNS, which sorts 10 before 9 and defeats the index.
  return {
    sql: `SELECT ${COLUMNS}, ${KEYS_SQL} FROM ${FROM} ${WHERE} ORDER BY ${ORDER} LIMIT ? OFFSET ?`,
    bindings: [...(fenced ? w.args : []), ...args, limit, at.offset ?? 0],
  };
}

async function keysetPage(db: Conn, f: CaseFilter, r: PageRequest, total = 0): Promise<Omit<CasePage, 'total'>> {
  const backward = r.before !== undefined;
  const token = r.after ?? (r.before === 'end' ? undefined : r.before);
  const from = token === undefined ? null : decodeCursor(token, r.sort);
  // The last page holds what paging forward from the first would leave for it, so pages line up both ways.
  const limit = r.before === 'end' ? total % r.limit || r.limit : r.limit;
  const offset = !from && !backward && r.page !== undefined ? (r.page - 1) * r.limit : 0;
  const q = casePageQuery(f, r.sort, limit + 1, { from, backward, offset });
  const res = await db.raw(q.sql, q.bindings);
  const rows = rowsOf(res);
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  if (backward) shown.reverse();
  // Where the page sits: after a cursor, right behind it; before one, right ahead of it; at the end, the last rows.
  const start = !backward ? (from?.place ?? offset) : from ? Math.max(0, from.place - 1 - shown.length) : Math.max(0, total - shown.length);
  const cursorOf = (row: Row, place: number) =>
    encodeCursor({ sort: r.sort, keys: KEYS[r.sort].map((_, i) => text(row, `sort_key_${i}`)), id: id(row, 'id'), place });
  const first = shown[0];
  const last = shown[shown.length - 1];
  return {
    first: first ? start + 1 : 0,
    cases: shown.map(toCase),
    next: last && (backward ? r.before !== 'end' : more) ? cursorOf(last, start + shown.length) : null,
    prev: first && (backward ? more : from !== null || offset > 0) ? cursorOf(first, start + 1) : null,
  };
}

/** The unresolved case after this one in the queue's age order (the case page's "next case"); null at the end. */
export async function nextCaseId(db: Conn, c: { id: string; openedAt: Date }): Promise<string | null> {
  const res = await db.raw(
    `SELECT id::text AS id FROM cases
      WHERE state IN ('open', 'acknowledged') AND opened_at >= ? AND (opened_at > ? OR cases.id > ?::bigint)
      ORDER BY opened_at, cases.id LIMIT 1`,
    [c.openedAt, c.openedAt, c.id],
  );
  const row = rowsOf(res)[0];
  return row ? id(row, 'id') : null;
}
