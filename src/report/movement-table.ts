import type { Knex } from '../db/knex-types.ts';
import { movementsWithMatch, type MovementWithMatch, type StatementState } from '../db/movements.ts';
import type { CountedMovement, SnapshotRollForward } from '../snapshot/rollforward.ts';
import { COLUMN } from './columns.ts';
import type { Table, TableRow, TableSpec } from '../tabular/table.ts';

/**
 * The movements that moved the day's balance (issue 38): the recorded, approved top-ups, withdrawals
 * and provider adjustments each currency's roll-forward counted (certainly between the day's
 * snapshots, or a timing item it took in), one row each, with who recorded and approved it, its USDT
 * leg and how it stands against the bank. movements.csv, the workbook's Movements sheet, report.html
 * and the e-mail (which also sums them per currency: what came in and went out).
 */
export const MOVEMENTS_TABLE: TableSpec = {
  name: 'movements',
  title: 'Movements of the day',
  columns: [
    COLUMN.currency,
    { name: 'reference', kind: 'text' },
    { name: 'kind', kind: 'text', width: 11 },
    COLUMN.direction,
    { name: 'amount', kind: 'amount' },
    { name: 'effect', kind: 'amount', label: 'balance effect' },
    { name: 'occurred_from', kind: 'datetime', label: 'occurred' },
    { name: 'occurred_to', kind: 'datetime', label: 'occurred until' },
    { name: 'counted', kind: 'text', label: 'counted as' },
    { name: 'usdt_amount', kind: 'decimal', label: 'USDT amount', decimals: 6 },
    { name: 'usdt_rate', kind: 'decimal', label: 'USDT rate' },
    { name: 'recorded_by', kind: 'text', label: 'recorded by' },
    { name: 'recorded_at', kind: 'datetime', label: 'recorded' },
    { name: 'source', kind: 'text' },
    { name: 'approved_by', kind: 'text', label: 'approved by' },
    { name: 'approved_at', kind: 'datetime', label: 'approved' },
    { name: 'statement', kind: 'text', label: 'bank statement' },
    { name: 'statement_line', kind: 'text', label: 'statement line' },
    { name: 'bank_difference', kind: 'amount', label: 'bank difference' },
    { name: 'note', kind: 'text' },
  ],
  notes: [
    "The recorded, approved movements the day's roll-forward counted: between the two snapshots, or a timing item (its moment, widened by MOVEMENT_LAG_MIN, overlaps a snapshot) counted in the day. balance effect: in +amount, out −amount; their sum per currency is the roll-forward's explained by movements plus the movements among its timing movement.",
    'bank statement: matched (one line, or many-to-one: several movements settled by one line on an exact sum), unmatched (a bank top-up or withdrawal no statement line settles yet), or no bank leg (a USDT leg, an adjustment or a charge). bank difference: the line’s amount − the movement’s (bank charges).',
  ],
};

function statementCells(s: StatementState): [string, string | null, string | null] {
  if (s.kind !== 'matched') return [s.kind, null, null];
  return [s.match === 'many_to_one' ? 'matched, many-to-one' : 'matched', `${s.bankAccount} ${s.lineId}`, s.difference];
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function row(currency: string, c: CountedMovement, m: MovementWithMatch): TableRow {
  return [
    currency,
    m.reference,
    m.kind,
    m.direction,
    m.amount,
    c.effect,
    m.occurredFrom.getTime(),
    m.occurredTo.getTime(),
    c.timing ? 'timing item' : 'between snapshots',
    m.usdtAmount,
    m.usdtRate,
    m.recordedBy,
    m.recordedAt.getTime(),
    m.source,
    m.approvedBy,
    m.approvedAt ? m.approvedAt.getTime() : null,
    ...statementCells(m.statement),
    m.note,
  ];
}

/** The day's counted movements, by currency, then moment, then reference. */
export async function movementsTable(
  tx: Knex.Transaction,
  currencies: readonly string[],
  results: ReadonlyMap<string, SnapshotRollForward | null>,
): Promise<Table> {
  const counted = currencies.flatMap((c) => (results.get(c)?.movements ?? []).map((m) => ({ currency: c, counted: m })));
  const stored = new Map((await movementsWithMatch(tx, [...new Set(counted.map((c) => c.counted.id))])).map((m) => [m.id, m]));
  const rows = counted
    .map((c) => ({ ...c, stored: stored.get(c.counted.id)! }))
    .sort(
      (a, b) =>
        byText(a.currency, b.currency) ||
        a.stored.occurredFrom.getTime() - b.stored.occurredFrom.getTime() ||
        byText(a.stored.reference, b.stored.reference),
    )
    .map((c) => row(c.currency, c.counted, c.stored));
  return {
    ...MOVEMENTS_TABLE,
    rows,
    ...(rows.length === 0
      ? { notes: ['No recorded, approved movement moved the balance this day (payrecon movements list shows the register).'] }
      : {}),
  };
}
