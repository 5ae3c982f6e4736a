import type { Knex } from 'knex';
import { MOVEMENT_DIRECTIONS, MOVEMENT_KINDS, isMaker, type MovementDirection, type MovementKind } from '../domain/movements.ts';
import { date, dateOrNull, oneRow, rowsOf, text, textOrNull, type Row } from './row.ts';
import { bindingsOf, param, sql } from './sql-text.ts';
import { oneOf } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** One provider account today; the reference is unique per account. */
export const DEFAULT_ACCOUNT = 'default';

/** A movement as recorded; amounts decimal text. */
export interface MovementInput {
  reference: string;
  currency: string;
  direction: MovementDirection;
  amount: string;
  occurredFrom: Date;
  occurredTo: Date;
  kind: MovementKind;
  usdtAmount: string | null;
  usdtRate: string | null;
  note: string;
}

export interface StoredMovement extends MovementInput {
  id: string;
  account: string;
  recordedBy: string;
  recordedAt: Date;
  source: string;
  approvedBy: string | null;
  approvedAt: Date | null;
}

// `t` qualifies each column with a table alias where a query joins ('v.').
const columnsOf = (t = '') => `${t}id::text AS id, ${t}account, ${t}reference, ${t}currency, ${t}direction, ${t}amount::text AS amount,
  ${t}occurred_from, ${t}occurred_to, ${t}kind, ${t}usdt_amount::text AS usdt_amount, ${t}usdt_rate::text AS usdt_rate, ${t}note,
  ${t}recorded_by, ${t}recorded_at, ${t}source, ${t}approved_by, ${t}approved_at`;
const COLUMNS = columnsOf();

function toMovement(r: Row): StoredMovement {
  return {
    id: text(r, 'id'),
    account: text(r, 'account'),
    reference: text(r, 'reference'),
    currency: text(r, 'currency'),
    direction: oneOf(r, 'direction', MOVEMENT_DIRECTIONS),
    amount: text(r, 'amount'),
    occurredFrom: date(r, 'occurred_from'),
    occurredTo: date(r, 'occurred_to'),
    kind: oneOf(r, 'kind', MOVEMENT_KINDS),
    usdtAmount: textOrNull(r, 'usdt_amount'),
    usdtRate: textOrNull(r, 'usdt_rate'),
    note: text(r, 'note'),
    recordedBy: text(r, 'recorded_by'),
    recordedAt: date(r, 'recorded_at'),
    source: text(r, 'source'),
    approvedBy: textOrNull(r, 'approved_by'),
    approvedAt: dateOrNull(r, 'approved_at'),
  };
}

/** The stored movements with these references, by reference. */
export async function movementsByReference(
  db: Conn,
  references: readonly string[],
  account = DEFAULT_ACCOUNT,
): Promise<Map<string, StoredMovement>> {
  if (references.length === 0) return new Map();
  const rows = rowsOf(
    await db.raw(`SELECT ${COLUMNS} FROM movements WHERE account = ? AND reference = ANY(?::text[])`, [account, [...references]]),
  );
  return new Map(rows.map((r) => [text(r, 'reference'), toMovement(r)]));
}

/**
 * Records movements and their 'recorded' audit rows, in the caller's transaction. A reference
 * already stored is a unique violation: the caller checks first, under the same transaction.
 */
export async function insertMovements(
  trx: Knex.Transaction,
  movements: readonly MovementInput[],
  by: { recordedBy: string; source: string; at: Date },
  account = DEFAULT_ACCOUNT,
): Promise<StoredMovement[]> {
  const out: StoredMovement[] = [];
  for (const m of movements) {
    const r = oneRow(
      await trx.raw(
        `INSERT INTO movements (account, reference, currency, direction, amount, occurred_from, occurred_to, kind, usdt_amount, usdt_rate,
                                note, recorded_by, recorded_at, source)
         VALUES (?, ?, ?, ?, ?::numeric, ?, ?, ?, ?::numeric, ?::numeric, ?, ?, ?, ?)
         RETURNING ${COLUMNS}`,
        [
          account,
          m.reference,
          m.currency,
          m.direction,
          m.amount,
          m.occurredFrom,
          m.occurredTo,
          m.kind,
          m.usdtAmount,
          m.usdtRate,
          m.note,
          by.recordedBy,
          by.at,
          by.source,
        ],
      ),
    );
    const stored = toMovement(r);
    await insertEvent(trx, stored.id, 'recorded', by.recordedBy, by.at, { source: by.source });
    out.push(stored);
  }
  return out;
}

async function insertEvent(
  trx: Knex.Transaction,
  movementId: string,
  action: 'recorded' | 'approved',
  actor: string,
  at: Date,
  detail: object,
) {
  await trx.raw(`INSERT INTO movement_events (movement_id, action, actor, at, detail) VALUES (?::bigint, ?, ?, ?, ?::jsonb)`, [
    movementId,
    action,
    actor,
    at,
    JSON.stringify(detail),
  ]);
}

export type ApproveOutcome =
  | { kind: 'approved'; movement: StoredMovement }
  | { kind: 'not_found' }
  | { kind: 'own'; movement: StoredMovement }
  | { kind: 'already'; movement: StoredMovement };

/** Approves a movement as `by` (maker-checker: never the person who recorded it), with its audit row. */
export async function approveMovement(
  trx: Knex.Transaction,
  reference: string,
  by: string,
  at: Date,
  account = DEFAULT_ACCOUNT,
): Promise<ApproveOutcome> {
  const found = rowsOf(
    await trx.raw(`SELECT ${COLUMNS} FROM movements WHERE account = ? AND reference = ? FOR UPDATE`, [account, reference]),
  );
  if (found.length === 0) return { kind: 'not_found' };
  const movement = toMovement(found[0]);
  if (movement.approvedBy !== null) return { kind: 'already', movement };
  if (isMaker(movement, by)) return { kind: 'own', movement };
  const r = oneRow(
    await trx.raw(`UPDATE movements SET approved_by = ?, approved_at = ? WHERE id = ?::bigint RETURNING ${COLUMNS}`, [by, at, movement.id]),
  );
  await insertEvent(trx, movement.id, 'approved', by, at, {});
  return { kind: 'approved', movement: toMovement(r) };
}

/** Every movement, newest moment first (the register is small: people record these one by one). */
export async function listMovements(db: Conn, account = DEFAULT_ACCOUNT): Promise<StoredMovement[]> {
  const rows = rowsOf(await db.raw(`SELECT ${COLUMNS} FROM movements WHERE account = ? ORDER BY occurred_from DESC, id DESC`, [account]));
  return rows.map(toMovement);
}

export interface MovementEvent {
  movementId: string;
  action: 'recorded' | 'approved';
  actor: string;
  at: Date;
}

/** The audit rows of a movement, oldest first. */
export async function movementEvents(db: Conn, movementId: string): Promise<MovementEvent[]> {
  const rows = rowsOf(
    await db.raw(
      `SELECT movement_id::text AS movement_id, action, actor, at FROM movement_events WHERE movement_id = ?::bigint ORDER BY id`,
      [movementId],
    ),
  );
  return rows.map((r) => ({
    movementId: text(r, 'movement_id'),
    action: oneOf(r, 'action', ['recorded', 'approved'] as const),
    actor: text(r, 'actor'),
    at: date(r, 'at'),
  }));
}

/** An approved movement that may have moved the balance between two readings (its interval widened by the lag). */
export interface WindowMovement {
  id: string;
  reference: string;
  kind: MovementKind;
  /** Signed change of the balance: in +amount, out −amount. */
  effect: string;
  usdtAmount: string | null;
  usdtRate: string | null;
  from: Date;
  to: Date;
}

// Approved movements of the currency whose widened interval [from − lag, to + lag] overlaps
// [opening_from, closing_to]: the caller sorts them into certainly inside and timing items.
const WINDOW_MOVEMENTS = sql`SELECT id::text AS id, reference, kind,
       (CASE direction WHEN 'in' THEN amount ELSE -amount END)::text AS effect, usdt_amount::text AS usdt_amount, usdt_rate::text AS usdt_rate,
       occurred_from - ${param('lag')}::interval AS lo, occurred_to + ${param('lag')}::interval AS hi
  FROM movements
 WHERE account = ${param('account')} AND currency = ${param('currency')} AND approved_at IS NOT NULL
   AND occurred_to + ${param('lag')}::interval > ${param('opening_from')}::timestamptz
   AND occurred_from - ${param('lag')}::interval < ${param('closing_to')}::timestamptz
 ORDER BY occurred_from, id`;

export async function windowMovements(
  db: Conn,
  input: { currency: string; openingFrom: Date; closingTo: Date; lagMs: number; account?: string },
): Promise<WindowMovement[]> {
  const values = {
    account: input.account ?? DEFAULT_ACCOUNT,
    currency: input.currency,
    lag: `${Math.max(0, Math.floor(input.lagMs))} milliseconds`,
    opening_from: input.openingFrom.toISOString(),
    closing_to: input.closingTo.toISOString(),
  };
  const rows = rowsOf(await db.raw(WINDOW_MOVEMENTS.text, bindingsOf(WINDOW_MOVEMENTS, values)));
  return rows.map((r) => ({
    id: text(r, 'id'),
    reference: text(r, 'reference'),
    kind: oneOf(r, 'kind', MOVEMENT_KINDS),
    effect: text(r, 'effect'),
    usdtAmount: textOrNull(r, 'usdt_amount'),
    usdtRate: textOrNull(r, 'usdt_rate'),
    from: date(r, 'lo'),
    to: date(r, 'hi'),
  }));
}

/**
 * Open BALANCE_DRIFT cases a movement explains exactly: same currency, a window its moment (widened by
 * the lag) overlaps, and a drift equal to its signed amount.
 */
export async function driftCasesExplainedBy(db: Conn, m: StoredMovement, lagMs: number): Promise<string[]> {
  const lag = `${Math.max(0, Math.floor(lagMs))} milliseconds`;
  const effect = m.direction === 'in' ? m.amount : `-${m.amount}`;
  const rows = rowsOf(
    await db.raw(
      `SELECT id::text AS id FROM cases
        WHERE code = 'BALANCE_DRIFT' AND state <> 'resolved' AND account_id = ? AND currency = ?
          AND window_start <= ?::timestamptz + ?::interval AND window_end >= ?::timestamptz - ?::interval
          AND (finding->>'drift') IS NOT NULL AND (finding->>'drift')::numeric = ?::numeric
        ORDER BY window_end, id`,
      [m.account, m.currency, m.occurredTo, lag, m.occurredFrom, lag, effect],
    ),
  );
  return rows.map((r) => text(r, 'id'));
}

/** Recorded but unapproved movements of the currency near a window whose signed amount equals `effect`. */
export async function pendingMovementsEqualTo(
  db: Conn,
  input: { currency: string; effect: string; from: Date; to: Date; lagMs: number; account?: string },
): Promise<Array<{ reference: string; recordedBy: string }>> {
  const lag = `${Math.max(0, Math.floor(input.lagMs))} milliseconds`;
  const rows = rowsOf(
    await db.raw(
      `SELECT reference, recorded_by FROM movements
        WHERE approved_at IS NULL AND account = ? AND currency = ? AND (CASE direction WHEN 'in' THEN amount ELSE -amount END) = ?::numeric
          AND occurred_from - ?::interval <= ?::timestamptz AND occurred_to + ?::interval >= ?::timestamptz
        ORDER BY occurred_from, id`,
      [input.account ?? DEFAULT_ACCOUNT, input.currency, input.effect, lag, input.to, lag, input.from],
    ),
  );
  return rows.map((r) => ({ reference: text(r, 'reference'), recordedBy: text(r, 'recorded_by') }));
}

/** How a movement stands against the bank: settled by a statement line, waiting for one, or with no bank leg. */
export type StatementState =
  | { kind: 'matched'; match: 'one_to_one' | 'many_to_one'; bankAccount: string; lineId: string; difference: string }
  | { kind: 'unmatched' }
  | { kind: 'no bank leg' };

export type MovementWithMatch = StoredMovement & { statement: StatementState };

// A bank movement (a top-up from or withdrawal to a bank account: no USDT leg) expects a statement
// line, as unsettledBankMovements says; the others settle in USDT or inside the provider.
const WITH_MATCH = `SELECT ${columnsOf('v.')},
       (v.kind IN ('top_up', 'withdrawal') AND v.usdt_amount IS NULL) AS bank_leg,
       m.kind AS match_kind, m.difference::text AS match_difference, l.bank_account AS match_account, l.line_id AS match_line
  FROM movements v
  LEFT JOIN statement_matches m ON m.movement_id = v.id
  LEFT JOIN statement_lines l ON l.id = m.statement_line_id`;

function withMatch(r: Row): MovementWithMatch {
  const kind = textOrNull(r, 'match_kind');
  const statement: StatementState =
    kind === 'one_to_one' || kind === 'many_to_one'
      ? {
          kind: 'matched',
          match: kind,
          bankAccount: text(r, 'match_account'),
          lineId: text(r, 'match_line'),
          difference: text(r, 'match_difference'),
        }
      : r['bank_leg'] === true
        ? { kind: 'unmatched' }
        : { kind: 'no bank leg' };
  return { ...toMovement(r), statement };
}

/** The movements with these ids, with their statement match, in no particular order. */
export async function movementsWithMatch(db: Conn, ids: readonly string[]): Promise<MovementWithMatch[]> {
  if (ids.length === 0) return [];
  const rows = rowsOf(await db.raw(`${WITH_MATCH} WHERE v.id = ANY(?::bigint[])`, [[...ids]]));
  return rows.map(withMatch);
}

/** Every movement of the account (null: of every account) with its statement match, newest moment first. */
export async function listMovementsWithMatch(db: Conn, account: string | null = DEFAULT_ACCOUNT): Promise<MovementWithMatch[]> {
  const rows =
    account === null
      ? rowsOf(await db.raw(`${WITH_MATCH} ORDER BY v.occurred_from DESC, v.id DESC`))
      : rowsOf(await db.raw(`${WITH_MATCH} WHERE v.account = ? ORDER BY v.occurred_from DESC, v.id DESC`, [account]));
  return rows.map(withMatch);
}

/** One movement by id with its statement match, or null. */
export async function movementWithMatch(db: Conn, id: string): Promise<MovementWithMatch | null> {
  const [m] = await movementsWithMatch(db, [id]);
  return m ?? null;
}
