import type { Knex } from 'knex';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';
import { DIRECTIONS, type Direction } from '../domain/types.ts';
import { CASE_REASONS, CASE_STATES, type CaseReason, type CaseState, type Transition } from '../recon/cases.ts';
import {
  bool,
  date,
  dateOrNull,
  id,
  idOrNull,
  int,
  object,
  oneOf,
  oneOfOrNull,
  RowShapeError,
  rowsOf,
  text,
  textOrNull,
  texts,
  type Row,
} from './row.ts';
import { arrayLiteral, timestampOrNull, unnestRows, type UnnestColumn } from './unnest.ts';
import { caseWhere, type CaseFilter } from './case-filter.ts';

export type { CaseFilter };

type Conn = Knex | Knex.Transaction;

/** The latest finding behind a case: the two values side by side and the sentence for people. */
export interface CaseFinding {
  local?: string | null;
  provider?: string | null;
  note?: string;
  /** Anything else worth keeping (drift figures, the notification's values). */
  [key: string]: unknown;
}

/** What a case is about; `subject` and `code` are its key. */
export interface CaseSubject {
  subject: string;
  code: string;
  /** The account the case belongs to when it is opened; unset: "default" (the single account). */
  accountId?: string;
  direction?: Direction | null;
  orderId?: string | null;
  merchantRef?: string | null;
  transactionRef?: string | null;
  currency?: string | null;
  windowStart?: Date | null;
  windowEnd?: Date | null;
  occurredAt: Date;
}

export interface StoredCase {
  id: string;
  subject: string;
  code: string;
  direction: Direction | null;
  orderId: string | null;
  merchantRef: string | null;
  transactionRef: string | null;
  currency: string | null;
  windowStart: Date | null;
  windowEnd: Date | null;
  occurredAt: Date;
  state: CaseState;
  resolution: CaseReason | null;
  createdAt: Date;
  openedAt: Date;
  stateChangedAt: Date;
  lastSeenAt: Date;
  seenCount: number;
  finding: CaseFinding;
  version: number;
  /** The console user working it; null: nobody. */
  assignee: string | null;
  /** provider - local as signed decimal text on a money code (AMOUNT, PAID_AMOUNT, FEE, BALANCE_DRIFT) with both amounts; null otherwise. */
  difference: string | null;
  /** |difference|; null when nothing is at stake. */
  atRisk: string | null;
  /** atRisk in USDT at the rate of the case's day (sql/041_case_money.sql); null without a rate. */
  atRiskUsdt: string | null;
  /** The account the case belongs to (sql/052); "default" with a single account. */
  accountId: string;
}

/** An audit row: a state change, or a comment or an assignment that leaves the state as it was. */
export type CaseEventKind = (typeof EVENT_KINDS)[number];

export interface CaseEventRow {
  id: string;
  caseId: string;
  kind: CaseEventKind;
  fromState: CaseState | null;
  toState: CaseState;
  reason: string | null;
  note: string;
  actor: string;
  at: Date;
}

export const COLUMNS = `id::text AS id, subject, code, direction, order_id::text AS order_id, merchant_ref, transaction_ref, currency,
  window_start, window_end, occurred_at, state, resolution, created_at, opened_at, state_changed_at, last_seen_at, seen_count, finding, version,
  assignee, difference::text AS difference, at_risk::text AS at_risk, at_risk_usdt::text AS at_risk_usdt, account_id`;

export function toCase(r: Row): StoredCase {
  return {
    id: id(r, 'id'),
    subject: text(r, 'subject'),
    code: text(r, 'code'),
    direction: oneOfOrNull(r, 'direction', DIRECTIONS),
    orderId: idOrNull(r, 'order_id'),
    merchantRef: textOrNull(r, 'merchant_ref'),
    transactionRef: textOrNull(r, 'transaction_ref'),
    currency: textOrNull(r, 'currency'),
    windowStart: dateOrNull(r, 'window_start'),
    windowEnd: dateOrNull(r, 'window_end'),
    occurredAt: date(r, 'occurred_at'),
    state: oneOf(r, 'state', CASE_STATES),
    resolution: oneOfOrNull(r, 'resolution', CASE_REASONS),
    createdAt: date(r, 'created_at'),
    openedAt: date(r, 'opened_at'),
    stateChangedAt: date(r, 'state_changed_at'),
    lastSeenAt: date(r, 'last_seen_at'),
    seenCount: int(r, 'seen_count'),
    finding: findingOf(r),
    version: int(r, 'version'),
    assignee: textOrNull(r, 'assignee'),
    difference: textOrNull(r, 'difference'),
    atRisk: textOrNull(r, 'at_risk'),
    atRiskUsdt: textOrNull(r, 'at_risk_usdt'),
    accountId: text(r, 'account_id'),
  };
}

/** The finding column (a jsonb object); the values the console sets side by side are text. */
function findingOf(r: Row): CaseFinding {
  if (r.finding == null) return {};
  const f = object(r, 'finding');
  if (isFinding(f)) return f;
  throw new RowShapeError('finding', 'a finding with local, provider and note as text', f);
}

const isFinding = (f: Record<string, unknown>): f is CaseFinding =>
  [f.local, f.provider].every((v) => v == null || typeof v === 'string') && (f.note === undefined || typeof f.note === 'string');

/** A case's key (subject and code) as one map key. */
export const caseKey = (subject: string, code: string): string => `${subject}\u0000${code}`;

/** The subject of an order's cases. */
export const orderSubject = (direction: Direction, orderId: string): string => `${direction}:${orderId}`;
/** The subject of an order the provider knows and the merchant does not. */
export const unknownOrderSubject = (direction: Direction, transactionRef: string): string => `unknown-${direction}:${transactionRef}`;
/**
 * The subject of a BALANCE_DRIFT: a currency and the window between two snapshots, and the window's account
 * when several are configured (two accounts' windows may share their moments); one account: as before.
 */
export const driftSubject = (currency: string, from: Date, to: Date, account?: string): string =>
  `${account !== undefined ? `${account}/` : ''}${currency}:${from.toISOString()}/${to.toISOString()}`;

export async function getCase(db: Conn, id: string, opts: { forUpdate?: boolean } = {}): Promise<StoredCase | null> {
  if (!/^\d{1,18}$/.test(id)) return null;
  const LOCK = opts.forUpdate ? 'FOR UPDATE' : '';
  const res = await db.raw(`SELECT ${COLUMNS} FROM cases WHERE id = ?::bigint ${LOCK}`, [id]);
  const row = rowsOf(res)[0];
  return row ? toCase(row) : null;
}

export async function findCase(db: Conn, subject: string, code: string, opts: { forUpdate?: boolean } = {}): Promise<StoredCase | null> {
  const LOCK = opts.forUpdate ? 'FOR UPDATE' : '';
  const res = await db.raw(`SELECT ${COLUMNS} FROM cases WHERE subject = ? AND code = ? ${LOCK}`, [subject, code]);
  const row = rowsOf(res)[0];
  return row ? toCase(row) : null;
}

/**
 * Every case of the given subjects, by subject then code. `forUpdate` locks them for the caller's
 * transaction (a batch of checked orders); a report reads them without locking.
 */
export async function casesOfSubjects(db: Conn, subjects: readonly string[], opts: { forUpdate?: boolean } = {}): Promise<StoredCase[]> {
  if (subjects.length === 0) return [];
  const LOCK = opts.forUpdate ? 'ORDER BY cases.id FOR UPDATE' : 'ORDER BY subject, code';
  const res = await db.raw(`SELECT ${COLUMNS} FROM cases WHERE subject = ANY (?::text[]) ${LOCK}`, [
    arrayLiteral([...new Set(subjects)], (x) => x),
  ]);
  return rowsOf(res).map(toCase);
}

/** A case to open in a batch: what it is about, its first finding, and the opening transition. */
export interface CaseToOpen {
  subject: CaseSubject;
  finding: CaseFinding;
  transition: Transition;
}

const OPEN_COLUMNS: readonly UnnestColumn<CaseToOpen>[] = [
  { name: 'subject', type: 'text', value: (x) => x.subject.subject },
  { name: 'code', type: 'text', value: (x) => x.subject.code },
  { name: 'account_id', type: 'text', value: (x) => x.subject.accountId ?? DEFAULT_ACCOUNT_ID },
  { name: 'direction', type: 'text', value: (x) => x.subject.direction ?? null },
  { name: 'order_id', type: 'bigint', value: (x) => x.subject.orderId ?? null },
  { name: 'merchant_ref', type: 'text', value: (x) => x.subject.merchantRef ?? null },
  { name: 'transaction_ref', type: 'text', value: (x) => x.subject.transactionRef ?? null },
  { name: 'currency', type: 'text', value: (x) => x.subject.currency ?? null },
  { name: 'window_start', type: 'timestamptz', value: (x) => timestampOrNull(x.subject.windowStart) },
  { name: 'window_end', type: 'timestamptz', value: (x) => timestampOrNull(x.subject.windowEnd) },
  { name: 'occurred_at', type: 'timestamptz', value: (x) => timestampOrNull(x.subject.occurredAt) },
  { name: 'state', type: 'text', value: (x) => x.transition.to },
  // jsonb per row travels as text and is cast in the SELECT (as recon_items' details do).
  { name: 'finding', type: 'text', value: (x) => JSON.stringify(x.finding) },
];

/**
 * Opens a case with its first audit row. Null when the case already exists (another process opened
 * it first): the caller reads it and decides again.
 */
export async function insertCase(
  trx: Knex.Transaction,
  s: CaseSubject,
  finding: CaseFinding,
  t: Transition,
  at: Date,
): Promise<StoredCase | null> {
  const [opened] = await insertCases(trx, [{ subject: s, finding, transition: t }], at);
  return opened ?? null;
}

/**
 * Opens a batch of cases, each with its first audit row, in two statements whatever the batch size.
 * A case that already exists (opened by another process meanwhile) is left as it is and is missing
 * from the result: the caller reads it and decides again. Returns the cases opened.
 */
export async function insertCases(trx: Knex.Transaction, cases: readonly CaseToOpen[], at: Date): Promise<StoredCase[]> {
  if (cases.length === 0) return [];
  const v = unnestRows(cases, OPEN_COLUMNS);
  const res = await trx.raw(
    `INSERT INTO cases (subject, code, account_id, direction, order_id, merchant_ref, transaction_ref, currency, window_start, window_end, occurred_at,
                        state, resolution, created_at, opened_at, state_changed_at, last_seen_at, finding)
     SELECT subject, code, account_id, direction, order_id, merchant_ref, transaction_ref, currency, window_start, window_end, occurred_at,
            state, NULL, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::timestamptz, finding::jsonb
       FROM ${v.sql}
     ON CONFLICT (subject, code) DO NOTHING
     RETURNING ${COLUMNS}`,
    [at, at, at, at, ...v.bindings],
  );
  const opened = rowsOf(res)
    .map(toCase)
    .sort((a, b) => Number(a.id) - Number(b.id));
  const transitionOf = new Map(cases.map((c) => [caseKey(c.subject.subject, c.subject.code), c.transition]));
  await insertCaseEvents(
    trx,
    opened.map((c) => ({ caseId: c.id, transition: transitionOf.get(caseKey(c.subject, c.code))! })),
    at,
  );
  return opened;
}

/**
 * Moves a case and records the move, in the caller's transaction. Conditional on the state and
 * version the decision was computed from: false (and nothing written) when the case moved meanwhile.
 * A finding (on reopen) replaces the stored one and counts as a sighting.
 */
export async function transitionCase(
  trx: Knex.Transaction,
  c: Pick<StoredCase, 'id' | 'state' | 'version'>,
  t: Transition,
  at: Date,
  finding?: CaseFinding,
): Promise<boolean> {
  const reopening = t.to === 'open';
  const res = await trx.raw(
    `UPDATE cases SET state = ?, resolution = ?, state_changed_at = ?, version = version + 1,
            opened_at = CASE WHEN ? THEN ?::timestamptz ELSE opened_at END,
            last_seen_at = CASE WHEN ? THEN ?::timestamptz ELSE last_seen_at END,
            seen_count = seen_count + CASE WHEN ? THEN 1 ELSE 0 END,
            finding = coalesce(?::jsonb, finding)
      WHERE id = ?::bigint AND state = ? AND version = ?
      RETURNING id`,
    [
      t.to,
      t.to === 'resolved' ? t.reason : null,
      at,
      reopening,
      at,
      finding !== undefined,
      at,
      finding !== undefined,
      finding === undefined ? null : JSON.stringify(finding),
      c.id,
      c.state,
      c.version,
    ],
  );
  if (rowsOf(res).length === 0) return false;
  await insertCaseEvent(trx, c.id, t, at);
  return true;
}

/** The finding persists on a case that stays as it is: last seen and the latest values move. */
export async function markCaseSeen(
  db: Conn,
  c: Pick<StoredCase, 'id' | 'state' | 'version'>,
  finding: CaseFinding,
  at: Date,
): Promise<boolean> {
  return (await markCasesSeen(db, [{ case: c, finding }], at)).size > 0;
}

/** A sighting of a case's finding, conditional on the state and version it was decided from. */
export interface CaseSighting {
  case: Pick<StoredCase, 'id' | 'state' | 'version'>;
  finding: CaseFinding;
}

const SEEN_COLUMNS: readonly UnnestColumn<CaseSighting>[] = [
  { name: 'id', type: 'bigint', value: (x) => x.case.id },
  { name: 'state', type: 'text', value: (x) => x.case.state },
  { name: 'version', type: 'integer', value: (x) => x.case.version },
  { name: 'finding', type: 'text', value: (x) => JSON.stringify(x.finding) },
];

/**
 * markCaseSeen for a batch, in one statement. Returns the ids of the cases updated; a case that
 * moved since it was read (another state or version) is left as it is, for the caller to decide again.
 */
export async function markCasesSeen(db: Conn, sightings: readonly CaseSighting[], at: Date): Promise<Set<string>> {
  if (sightings.length === 0) return new Set();
  const v = unnestRows(sightings, SEEN_COLUMNS);
  const res = await db.raw(
    `UPDATE cases AS c SET last_seen_at = greatest(c.last_seen_at, ?::timestamptz), seen_count = c.seen_count + 1, finding = v.finding::jsonb
       FROM ${v.sql}
      WHERE c.id = v.id AND c.state = v.state AND c.version = v.version
      RETURNING c.id::text AS id`,
    [at, ...v.bindings],
  );
  return new Set(rowsOf(res).map((r) => id(r, 'id')));
}

/** The audit row; the table refuses UPDATE, DELETE and TRUNCATE (sql/012_cases.sql). */
async function insertCaseEvent(db: Conn, caseId: string, t: Transition, at: Date): Promise<void> {
  await insertCaseEvents(db, [{ caseId, transition: t }], at);
}

const EVENT_COLUMNS: readonly UnnestColumn<{ caseId: string; transition: Transition }>[] = [
  { name: 'case_id', type: 'bigint', value: (x) => x.caseId },
  { name: 'from_state', type: 'text', value: (x) => x.transition.from },
  { name: 'to_state', type: 'text', value: (x) => x.transition.to },
  { name: 'reason', type: 'text', value: (x) => x.transition.reason },
  { name: 'note', type: 'text', value: (x) => x.transition.note },
  { name: 'actor', type: 'text', value: (x) => x.transition.actor },
];

/** Audit rows for a batch: a function scan of unnest yields the rows in the order given, so their ids follow it. */
async function insertCaseEvents(db: Conn, events: ReadonlyArray<{ caseId: string; transition: Transition }>, at: Date): Promise<void> {
  if (events.length === 0) return;
  const v = unnestRows(events, EVENT_COLUMNS);
  await db.raw(
    `INSERT INTO case_events (case_id, from_state, to_state, reason, note, actor, at)
     SELECT case_id, from_state, to_state, reason, note, actor, ?::timestamptz FROM ${v.sql}`,
    [at, ...v.bindings],
  );
}

export async function caseHistory(db: Conn, caseId: string): Promise<CaseEventRow[]> {
  return (await caseHistories(db, [caseId])).get(caseId) ?? [];
}

/** The histories of many cases in one query (a page of the queue), by case id. */
export async function caseHistories(db: Conn, caseIds: readonly string[]): Promise<Map<string, CaseEventRow[]>> {
  const out = new Map<string, CaseEventRow[]>(caseIds.map((id) => [id, []]));
  if (caseIds.length === 0) return out;
  // Qualified: a bare `ORDER BY id` sorts by the text alias, putting event 10 before event 9.
  const res = await db.raw(
    `SELECT id::text AS id, case_id::text AS case_id, kind, from_state, to_state, reason, note, actor, at
       FROM case_events WHERE case_id = ANY (?::bigint[]) ORDER BY case_events.case_id, case_events.id`,
    [arrayLiteral(caseIds, (x) => x)],
  );
  for (const r of rowsOf(res)) out.get(id(r, 'case_id'))?.push(eventOf(r));
  return out;
}

const EVENT_KINDS = ['transition', 'comment', 'assign'] as const;

function eventOf(r: Row): CaseEventRow {
  return {
    id: id(r, 'id'),
    caseId: id(r, 'case_id'),
    kind: oneOf(r, 'kind', EVENT_KINDS),
    fromState: oneOfOrNull(r, 'from_state', CASE_STATES),
    toState: oneOf(r, 'to_state', CASE_STATES),
    reason: textOrNull(r, 'reason'),
    note: text(r, 'note'),
    actor: text(r, 'actor'),
    at: date(r, 'at'),
  };
}

/** Cases matching the filter, oldest opened first (the queue's order); at most `limit` (10,000). */
export async function selectCases(db: Conn, f: CaseFilter): Promise<StoredCase[]> {
  const w = caseWhere(f);
  const res = await db.raw(`SELECT ${COLUMNS} FROM cases ${w.sql} ORDER BY opened_at, cases.id LIMIT ?`, [...w.args, f.limit ?? 10_000]);
  return rowsOf(res).map(toCase);
}

/** How many cases per code and state. */
export async function caseStateCounts(db: Conn): Promise<Array<{ code: string; state: CaseState; count: number }>> {
  const res = await db.raw(`SELECT code, state, count(*)::int AS n FROM cases GROUP BY code, state ORDER BY code, state`);
  return rowsOf(res).map((r) => ({ code: text(r, 'code'), state: oneOf(r, 'state', CASE_STATES), count: int(r, 'n') }));
}

/** A run's mismatched order with the codes whose cases are still open (nobody acknowledged or resolved them). */
export interface OrderWithOpenCases {
  merchantRef: string;
  transactionRef: string;
  verdict: 'mismatch';
  reason: string;
  codes: string[];
  cases: Array<{ code: string; id: string }>;
}

/** What a run's alerts may still say: acknowledged, written-off or resolved cases are not repeated. */
export async function openCasesOfRun(db: Conn, runId: string): Promise<OrderWithOpenCases[]> {
  const res = await db.raw(
    `SELECT i.merchant_ref, i.transaction_ref, i.reason,
            array_agg(c.code ORDER BY c.code) AS codes, array_agg(c.id::text ORDER BY c.code) AS ids
       FROM recon_items i
       JOIN cases c ON c.subject = i.direction || ':' || i.order_id::text AND c.code = ANY (i.codes) AND c.state = 'open'
      WHERE i.run_id = ?::bigint AND i.verdict = 'mismatch'
      GROUP BY i.id, i.merchant_ref, i.transaction_ref, i.reason
      ORDER BY i.id`,
    [runId],
  );
  return rowsOf(res).map((r) => {
    const codes = texts(r, 'codes');
    const ids = texts(r, 'ids');
    return {
      merchantRef: text(r, 'merchant_ref'),
      transactionRef: text(r, 'transaction_ref'),
      verdict: 'mismatch' as const,
      reason: text(r, 'reason'),
      codes,
      cases: codes.map((code, i) => ({ code, id: ids[i] })),
    };
  });
}

/** The cases of many subjects at once (a report's rows), keyed by subject ("payment:42"). */
export async function casesBySubject(db: Conn, subjects: readonly string[]): Promise<Map<string, StoredCase[]>> {
  const out = new Map<string, StoredCase[]>();
  for (const c of await casesOfSubjects(db, subjects)) {
    const list = out.get(c.subject) ?? [];
    list.push(c);
    out.set(c.subject, list);
  }
  return out;
}

/** One currency and code of a report's case summary; amounts of nothing, counts only. */
export interface CaseStateCountRow {
  currency: string;
  code: string;
  open: number;
  acknowledged: number;
  /** Resolved for any reason but written-off. */
  resolved: number;
  writtenOff: number;
  /** When the oldest open or acknowledged case was (re)opened; null when none is. */
  oldestUnresolvedAt: Date | null;
}

/**
 * Cases whose subject occurred in [from, to) (an order's creation, a notification's receipt, a
 * drift window's start), counted per currency and code by state, as they stand now.
 */
export async function caseStateCountsOccurred(db: Conn, from: string, to: string, account?: string): Promise<CaseStateCountRow[]> {
  const res = await db.raw(
    `SELECT coalesce(currency, '') AS currency, code,
            count(*) FILTER (WHERE state = 'open')::int AS open,
            count(*) FILTER (WHERE state = 'acknowledged')::int AS acknowledged,
            count(*) FILTER (WHERE state = 'resolved' AND resolution IS DISTINCT FROM 'written-off')::int AS resolved,
            count(*) FILTER (WHERE state = 'resolved' AND resolution = 'written-off')::int AS written_off,
            min(opened_at) FILTER (WHERE state <> 'resolved') AS oldest_unresolved_at
       FROM cases
      WHERE occurred_at >= ?::timestamptz AND occurred_at < ?::timestamptz AND (?::text IS NULL OR account_id = ?::text)
      GROUP BY 1, 2
      ORDER BY coalesce(currency, '') COLLATE "C", code COLLATE "C"`,
    [from, to, account ?? null, account ?? null],
  );
  return rowsOf(res).map((r) => ({
    currency: text(r, 'currency'),
    code: text(r, 'code'),
    open: int(r, 'open'),
    acknowledged: int(r, 'acknowledged'),
    resolved: int(r, 'resolved'),
    writtenOff: int(r, 'written_off'),
    oldestUnresolvedAt: dateOrNull(r, 'oldest_unresolved_at'),
  }));
}

/** Transitions in [from, to) per currency: opened (new or reopened) and resolved, with the reason. */
export async function caseTransitionCounts(
  db: Conn,
  from: Date,
  to: Date,
  /** Only this account's cases (several accounts configured); undefined: every case. */
  account?: string,
): Promise<Array<{ currency: string; toState: CaseState; reason: string | null; reopened: boolean; count: number }>> {
  const res = await db.raw(
    `SELECT coalesce(c.currency, '') AS currency, e.to_state, e.reason, (e.from_state IS NOT NULL) AS reopened, count(*)::int AS n
       FROM case_events e JOIN cases c ON c.id = e.case_id
      WHERE e.at >= ? AND e.at < ? AND e.to_state IN ('open', 'resolved') AND (?::text IS NULL OR c.account_id = ?::text)
      GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    [from, to, account ?? null, account ?? null],
  );
  return rowsOf(res).map((r) => ({
    currency: text(r, 'currency'),
    toState: oneOf(r, 'to_state', CASE_STATES),
    reason: textOrNull(r, 'reason'),
    reopened: bool(r, 'reopened'),
    count: int(r, 'n'),
  }));
}

/** Unresolved cases (open or acknowledged) with when they were (re)opened, as of `asOf`. */
export async function unresolvedCaseAges(
  db: Conn,
  asOf: Date,
  account?: string,
): Promise<Array<{ currency: string; state: CaseState; openedAt: Date }>> {
  const res = await db.raw(
    `SELECT coalesce(currency, '') AS currency, state, opened_at FROM cases
      WHERE state IN ('open', 'acknowledged') AND opened_at <= ? AND (?::text IS NULL OR account_id = ?::text) ORDER BY opened_at, cases.id`,
    [asOf, account ?? null, account ?? null],
  );
  return rowsOf(res).map((r) => ({ currency: text(r, 'currency'), state: oneOf(r, 'state', CASE_STATES), openedAt: date(r, 'opened_at') }));
}
