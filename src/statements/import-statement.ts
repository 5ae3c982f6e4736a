import fs from 'node:fs';
import type { Knex } from '../db/knex-types.ts';
import { observeCase } from '../cases/observe.ts';
import {
  insertStatementLines,
  insertStatementMatches,
  statementMatches,
  unmatchedStatementLines,
  unsettledBankMovements,
  type MatchRow,
  type NewStatementLine,
  type StoredStatementLine,
  type UnsettledMovement,
} from '../db/statements.ts';
import { matchBankLines } from '../recon/bank-match.ts';
import { readCamt053 } from './camt053.ts';
import { readStatementCsv } from './statement-csv.ts';
import { StatementFormatError } from './statement-line.ts';

export interface StatementImportOptions {
  source: string;
  at: Date;
  maxBytes: number;
  /** Bank charges allowed between a line and its movement, per currency (BANK_CHARGE_TOLERANCE). */
  tolerance: (currency: string) => string;
  /** A bank movement with no statement line this long after its moment is MOVEMENT_UNSETTLED. */
  settleAfterMs: number;
}

export interface StatementImportResult {
  format: 'camt.053' | 'csv';
  lines: number;
  inserted: number;
  unchanged: number;
  /** Every problem that refused the file (nothing of it imported), with its line where known. */
  refused: Array<{ line: number | null; reason: string }>;
  /** Every match so far (this import's and earlier ones'). */
  matches: MatchRow[];
  /** Statement lines no movement explains: STATEMENT_UNMATCHED. */
  unmatchedLines: StoredStatementLine[];
  /** Bank movements with no statement line past the settle time: MOVEMENT_UNSETTLED. */
  unsettled: UnsettledMovement[];
}

class Refused extends Error {
  constructor(readonly refused: StatementImportResult['refused']) {
    super('refused');
  }
}

/** Which reader: XML starts with "<" (after a byte-order mark and white space), anything else is the CSV. */
async function sniff(file: string): Promise<'camt.053' | 'csv'> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    return head.startsWith('<') ? 'camt.053' : 'csv';
  } finally {
    await handle.close();
  }
}

/**
 * `payrecon statements import FILE`: reads a CAMT.053 or CSV statement (all of it, or nothing when any
 * line is refused), stores its lines once (by bank account and line id), matches the lines and the
 * bank movements still open (recon/bank-match.ts), and observes the cases: a line no movement explains
 * (STATEMENT_UNMATCHED), a bank movement with no line past the settle time (MOVEMENT_UNSETTLED); a
 * later match clears them.
 */
export async function importStatement(db: Knex, file: string, opts: StatementImportOptions): Promise<StatementImportResult> {
  const format = await sniff(file);
  const input = fs.createReadStream(file);
  let lines: NewStatementLine[];
  const refused: StatementImportResult['refused'] = [];
  try {
    if (format === 'camt.053') lines = (await readCamt053(input, { maxBytes: opts.maxBytes })).lines;
    else {
      const csv = await readStatementCsv(input, { maxBytes: opts.maxBytes });
      lines = csv.lines;
      refused.push(...csv.rejected);
    }
  } catch (err) {
    if (err instanceof StatementFormatError) return empty(format, [{ line: null, reason: err.message }]);
    throw err;
  }
  if (refused.length) return empty(format, refused, lines.length + refused.length);
  try {
    return await db.transaction(async (trx) => {
      const stored = await insertStatementLines(trx, lines, { source: opts.source, at: opts.at });
      if (stored.changed.length)
        throw new Refused(
          stored.changed.map((c) => ({
            line: null,
            reason: `line ${c.lineId} was imported before with other figures (${c.differences.join('; ')}); a booked line never changes: check the file is the bank's`,
          })),
        );
      const { unmatchedLines, unsettled } = await matchAndObserve(trx, opts);
      return {
        format,
        lines: lines.length,
        inserted: stored.inserted,
        unchanged: stored.unchanged,
        refused: [],
        matches: await statementMatches(trx),
        unmatchedLines,
        unsettled,
      };
    });
  } catch (err) {
    if (err instanceof Refused) return empty(format, err.refused, lines.length);
    throw err;
  }
}

const empty = (format: StatementImportResult['format'], refused: StatementImportResult['refused'], lines = 0): StatementImportResult => ({
  format,
  lines,
  inserted: 0,
  unchanged: 0,
  refused,
  matches: [],
  unmatchedLines: [],
  unsettled: [],
});

async function matchAndObserve(
  trx: Knex.Transaction,
  opts: StatementImportOptions,
): Promise<{ unmatchedLines: StoredStatementLine[]; unsettled: UnsettledMovement[] }> {
  const lines = await unmatchedStatementLines(trx);
  const movements = await unsettledBankMovements(trx);
  const result = matchBankLines(movements, lines, opts.tolerance);
  await insertStatementMatches(trx, result.matches, opts.at);
  const openLines = new Set(result.unmatchedLines);
  const openMovements = new Set(result.unmatchedMovements);
  for (const l of lines) {
    const subject = {
      subject: `statement:${l.bankAccount}/${l.lineId}`,
      code: 'STATEMENT_UNMATCHED',
      currency: l.currency,
      occurredAt: new Date(`${l.bookedOn}T00:00:00Z`),
    };
    if (openLines.has(l.id))
      await observeCase(trx, subject, { kind: 'finding' }, opts.at, {
        provider: l.amount,
        note: `bank ${l.direction} of ${l.currency} ${l.amount} on ${l.bookedOn} (${l.refs.join(' / ') || 'no reference'}) matches no recorded movement: record the top-up or withdrawal it was (payrecon movements import)`,
      });
    else await observeCase(trx, subject, { kind: 'consistent' }, opts.at);
  }
  const unsettled: UnsettledMovement[] = [];
  for (const m of movements) {
    const subject = { subject: `movement:${m.reference}`, code: 'MOVEMENT_UNSETTLED', currency: m.currency, occurredAt: m.occurredTo };
    const late = opts.at.getTime() - m.occurredTo.getTime() > opts.settleAfterMs;
    if (openMovements.has(m.id) && late) {
      unsettled.push(m);
      await observeCase(trx, subject, { kind: 'finding' }, opts.at, {
        local: m.amount,
        note: `${m.direction === 'out' ? 'withdrawal' : 'top-up'} ${m.reference} of ${m.currency} ${m.amount} has no bank statement line ${Math.round(opts.settleAfterMs / 3_600_000)}h after its moment: import the statement that holds it, or ask the bank`,
      });
    } else if (!openMovements.has(m.id)) await observeCase(trx, subject, { kind: 'consistent' }, opts.at);
  }
  return { unmatchedLines: lines.filter((l) => openLines.has(l.id)), unsettled };
}
