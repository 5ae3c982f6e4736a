import type { Knex } from 'knex';
import { Decimal } from '../money/decimal.ts';
import { date, dateOrNull, oneOf, rowsOf, text, texts, type Row } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** One booked line of a bank statement as imported, whichever file it came from (amounts decimal text, dates YYYY-MM-DD). */
export interface NewStatementLine {
  /** The bank account: IBAN, or the bank's own id. */
  bankAccount: string;
  /** The bank's id of the line (CAMT AcctSvcrRef, the CSV's line_id): unique within the account. */
  lineId: string;
  bookedOn: string;
  valueOn: string | null;
  currency: string;
  /** As the bank sees its account: credit = money arrived, debit = money left. */
  direction: 'credit' | 'debit';
  amount: string;
  /** End-to-end ids and remittance texts: where a movement's reference is looked for. */
  refs: string[];
  description: string;
}

export interface StoredStatementLine extends NewStatementLine {
  id: string;
  source: string;
  importedAt: Date;
}

const LINE_COLUMNS = `id::text AS id, bank_account, line_id, to_char(booked_on, 'YYYY-MM-DD') AS booked_on,
  to_char(value_on, 'YYYY-MM-DD') AS value_on, currency, direction, amount::text AS amount, refs, description, source, imported_at`;

function toLine(r: Row): StoredStatementLine {
  const valueOn = r['value_on'];
  return {
    id: text(r, 'id'),
    bankAccount: text(r, 'bank_account'),
    lineId: text(r, 'line_id'),
    bookedOn: text(r, 'booked_on'),
    valueOn: typeof valueOn === 'string' ? valueOn : null,
    currency: text(r, 'currency'),
    direction: oneOf(r, 'direction', ['credit', 'debit'] as const),
    amount: text(r, 'amount'),
    refs: texts(r, 'refs'),
    description: text(r, 'description'),
    source: text(r, 'source'),
    importedAt: date(r, 'imported_at'),
  };
}

/** What differs between a stored line and the same line in a file (bank account and line id equal). */
export function lineDifferences(old: NewStatementLine, line: NewStatementLine): string[] {
  const out: string[] = [];
  if (old.bookedOn !== line.bookedOn) out.push(`booked_on ${old.bookedOn} stored, ${line.bookedOn} in the file`);
  if (old.currency !== line.currency) out.push(`currency ${old.currency} stored, ${line.currency} in the file`);
  if (old.direction !== line.direction) out.push(`direction ${old.direction} stored, ${line.direction} in the file`);
  if (!new Decimal(old.amount).equals(line.amount)) out.push(`amount ${old.amount} stored, ${line.amount} in the file`);
  return out;
}

/**
 * Inserts the lines not stored yet, in the caller's transaction; a line stored before with the same
 * figures is counted as already imported, one whose figures differ is returned as changed (the caller
 * refuses the file). A bank does not rewrite a booked line: a changed one is a different file.
 */
export async function insertStatementLines(
  trx: Knex.Transaction,
  lines: readonly NewStatementLine[],
  by: { source: string; at: Date },
): Promise<{ inserted: number; unchanged: number; changed: Array<{ lineId: string; differences: string[] }> }> {
  let inserted = 0;
  let unchanged = 0;
  const changed: Array<{ lineId: string; differences: string[] }> = [];
  for (const l of lines) {
    const found = rowsOf(
      await trx.raw(`SELECT ${LINE_COLUMNS} FROM statement_lines WHERE bank_account = ? AND line_id = ?`, [l.bankAccount, l.lineId]),
    );
    if (found.length) {
      const diff = lineDifferences(toLine(found[0]), l);
      if (diff.length) changed.push({ lineId: l.lineId, differences: diff });
      else unchanged++;
      continue;
    }
    await trx.raw(
      `INSERT INTO statement_lines (bank_account, line_id, booked_on, value_on, currency, direction, amount, refs, description, source, imported_at)
       VALUES (?, ?, ?::date, ?::date, ?, ?, ?::numeric, ?::text[], ?, ?, ?)`,
      [l.bankAccount, l.lineId, l.bookedOn, l.valueOn, l.currency, l.direction, l.amount, l.refs, l.description, by.source, by.at],
    );
    inserted++;
  }
  return { inserted, unchanged, changed };
}

/** Statement lines no movement is matched to yet. */
export async function unmatchedStatementLines(db: Conn): Promise<StoredStatementLine[]> {
  const rows = rowsOf(
    await db.raw(
      `SELECT ${LINE_COLUMNS} FROM statement_lines l
        WHERE NOT EXISTS (SELECT 1 FROM statement_matches m WHERE m.statement_line_id = l.id) ORDER BY booked_on, id`,
    ),
  );
  return rows.map(toLine);
}

export interface UnsettledMovement {
  id: string;
  reference: string;
  currency: string;
  direction: 'in' | 'out';
  amount: string;
  occurredTo: Date;
  approvedAt: Date | null;
}

/** Bank movements (top-ups and withdrawals with no USDT leg) no statement line is matched to yet. */
export async function unsettledBankMovements(db: Conn): Promise<UnsettledMovement[]> {
  const rows = rowsOf(
    await db.raw(
      `SELECT id::text AS id, reference, currency, direction, amount::text AS amount, occurred_to, approved_at FROM movements v
        WHERE kind IN ('top_up', 'withdrawal') AND usdt_amount IS NULL
          AND NOT EXISTS (SELECT 1 FROM statement_matches m WHERE m.movement_id = v.id) ORDER BY occurred_from, id`,
    ),
  );
  return rows.map((r) => ({
    id: text(r, 'id'),
    reference: text(r, 'reference'),
    currency: text(r, 'currency'),
    direction: oneOf(r, 'direction', ['in', 'out'] as const),
    amount: text(r, 'amount'),
    occurredTo: date(r, 'occurred_to'),
    approvedAt: dateOrNull(r, 'approved_at'),
  }));
}

export async function insertStatementMatches(
  trx: Knex.Transaction,
  matches: ReadonlyArray<{ lineId: string; movementIds: readonly string[]; kind: 'one_to_one' | 'many_to_one'; difference: string }>,
  at: Date,
): Promise<void> {
  for (const m of matches)
    for (const movementId of m.movementIds)
      await trx.raw(
        `INSERT INTO statement_matches (statement_line_id, movement_id, kind, difference, matched_at) VALUES (?::bigint, ?::bigint, ?, ?::numeric, ?)`,
        [m.lineId, movementId, m.kind, m.difference, at],
      );
}

export interface MatchRow {
  lineId: string;
  bankAccount: string;
  bankLineId: string;
  reference: string;
  kind: 'one_to_one' | 'many_to_one';
  difference: string;
}

/** Every match, with the movement's reference and the bank's id of the line. */
export async function statementMatches(db: Conn): Promise<MatchRow[]> {
  const rows = rowsOf(
    await db.raw(
      `SELECT l.id::text AS line_id, l.bank_account, l.line_id AS bank_line_id, v.reference, m.kind, m.difference::text AS difference
         FROM statement_matches m JOIN statement_lines l ON l.id = m.statement_line_id JOIN movements v ON v.id = m.movement_id
        ORDER BY l.booked_on, l.id, v.reference`,
    ),
  );
  return rows.map((r) => ({
    lineId: text(r, 'line_id'),
    bankAccount: text(r, 'bank_account'),
    bankLineId: text(r, 'bank_line_id'),
    reference: text(r, 'reference'),
    kind: oneOf(r, 'kind', ['one_to_one', 'many_to_one'] as const),
    difference: text(r, 'difference'),
  }));
}

/**
 * Unmatched statement lines of the currency booked within [fromDay, toDay] whose effect on the wallet
 * equals `effect` (a bank credit came out of the wallet: −amount; a bank debit went into it: +amount).
 */
export async function unmatchedLinesEqualTo(
  db: Conn,
  input: { currency: string; effect: string; fromDay: string; toDay: string },
): Promise<Array<{ bankAccount: string; lineId: string }>> {
  const rows = rowsOf(
    await db.raw(
      `SELECT bank_account, line_id FROM statement_lines l
        WHERE currency = ? AND booked_on BETWEEN ?::date AND ?::date
          AND (CASE direction WHEN 'credit' THEN -amount ELSE amount END) = ?::numeric
          AND NOT EXISTS (SELECT 1 FROM statement_matches m WHERE m.statement_line_id = l.id)
        ORDER BY booked_on, id`,
      [input.currency, input.fromDay, input.toDay, input.effect],
    ),
  );
  return rows.map((r) => ({ bankAccount: text(r, 'bank_account'), lineId: text(r, 'line_id') }));
}
