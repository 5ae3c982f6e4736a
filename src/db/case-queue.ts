import type { Knex } from 'knex';
import { COLUMNS, toCase, type StoredCase } from './cases.ts';
import { id, int, oneRow, rowsOf, text, type Row } from './row.ts';
import { caseWhere, type CaseFilter } from './case-filter.ts';

type Conn = Knex | Knex.Transaction;

/** The queue's orders: oldest (re)opened first, or largest amount at risk first (none at risk last). */
export const CASE_SORTS = ['age', 'risk'] as const;
export type CaseSort = (typeof CASE_SORTS)[number];

/**
 * Where a page starts: the sort key and id of the row before it (after) or after it (before), as
 * one opaque token. Keyset, not offset: page 500 costs what page 1 costs.
 */
interface Position {
  sort: CaseSort;
  key: string;
  id: string;
  /** The row's place in the queue when the cursor was made (1-based): for "showing 101–200". */
  place: number;
}

// age: opened_at as Postgres prints it (microseconds and offset), so it reads back exactly.
// risk: at_risk with none as -1, so the order is one index's (sql/029_case_queue.sql).
const KEY: Record<CaseSort, { expr: string; cast: string; dir: 'ASC' | 'DESC' }> = {
  age: { expr: 'opened_at', cast: 'timestamptz', dir: 'ASC' },
  risk: { expr: 'coalesce(at_risk, -1)', cast: 'numeric', dir: 'DESC' },
};

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.sort, p.key, p.id, p.place])).toString('base64url');
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
  const [, key, id, place]: unknown[] = parsed;
  if (typeof key !== 'string' || typeof id !== 'string' || !/^\d{1,18}$/.test(id)) throw bad();
  if (typeof place !== 'number' || !Number.isSafeInteger(place) || place < 1) throw bad();
  if (sort === 'risk' && !/^-?\d{1,30}(\.\d{1,18})?$/.test(key)) throw bad();
  if (sort === 'age' && !/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d){0,2}$/.test(key)) throw bad();
  return { sort, key, id, place };
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

async function keysetPage(db: Conn, f: CaseFilter, r: PageRequest, total = 0): Promise<Omit<CasePage, 'total'>> {
  const w = caseWhere(f);
  const k = KEY[r.sort];
  const backward = r.before !== undefined;
  const token = r.after ?? (r.before === 'end' ? undefined : r.before);
  const from = token === undefined ? null : decodeCursor(token, r.sort);
  // Forward in DESC order, or backward in ASC order, the rows wanted have smaller keys.
  const smaller = (k.dir === 'DESC') !== backward;
  const conds = w.sql ? [w.sql.slice('WHERE '.length)] : [];
  const args = [...w.args];
  if (from) {
    conds.push(`(${k.expr}, id) ${smaller ? '<' : '>'} (?::${k.cast}, ?::bigint)`);
    args.push(from.key, from.id);
  }
  const dir = smaller ? 'DESC' : 'ASC';
  const WHERE = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  // The last page holds what paging forward from the first would leave for it, so pages line up both ways.
  const limit = r.before === 'end' ? total % r.limit || r.limit : r.limit;
  const offset = !from && !backward && r.page !== undefined ? (r.page - 1) * r.limit : 0;
  // cases.id, qualified: a bare `id` is the text alias of COLUMNS, which sorts 10 before 9 and defeats the index.
  const res = await db.raw(
    `SELECT ${COLUMNS}, (${k.expr})::text AS sort_key FROM cases ${WHERE} ORDER BY ${k.expr} ${dir}, cases.id ${dir} LIMIT ? OFFSET ?`,
    [...args, limit + 1, offset],
  );
  const rows = rowsOf(res);
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  if (backward) shown.reverse();
  // Where the page sits: after a cursor, right behind it; before one, right ahead of it; at the end, the last rows.
  const start = !backward ? (from?.place ?? offset) : from ? Math.max(0, from.place - 1 - shown.length) : Math.max(0, total - shown.length);
  const cursorOf = (row: Row, place: number) => encodeCursor({ sort: r.sort, key: text(row, 'sort_key'), id: id(row, 'id'), place });
  const first = shown[0];
  const last = shown[shown.length - 1];
  return {
    first: first ? start + 1 : 0,
    cases: shown.map(toCase),
    next: last && (backward ? r.before !== 'end' : more) ? cursorOf(last, start + shown.length) : null,
    prev: first && (backward ? more : from !== null || offset > 0) ? cursorOf(first, start + 1) : null,
  };
}
