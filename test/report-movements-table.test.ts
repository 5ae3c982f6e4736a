// Issue 38: movements.csv's rows, from the movements the day's roll-forwards counted: sorted by
// currency and moment, with approval, USDT leg, how each was counted and its bank statement match
// (one line, many-to-one, unmatched, no bank leg). Real database: the match state is read there.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { approveMovement, insertMovements, type MovementInput, type StoredMovement } from '../src/db/movements.ts';
import { insertStatementLines, insertStatementMatches } from '../src/db/statements.ts';
import { movementsTable, MOVEMENTS_TABLE } from '../src/report/movement-table.ts';
import type { SnapshotRollForward } from '../src/snapshot/rollforward.ts';

let t: TestDatabase;
const at = new Date('2026-11-27T10:00:00Z');
const stored = new Map<string, StoredMovement>();

const movement = (reference: string, over: Partial<MovementInput>): MovementInput => ({
  reference,
  currency: 'INR',
  direction: 'out',
  amount: '100.00',
  occurredFrom: at,
  occurredTo: at,
  kind: 'withdrawal',
  usdtAmount: null,
  usdtRate: null,
  note: '',
  ...over,
});

beforeAll(async () => {
  t = await createTestDatabase('report_movements_table');
  await t.db.knex.transaction(async (trx) => {
    const minutes = (m: number) => new Date(at.getTime() + m * 60_000);
    const written = await insertMovements(
      trx,
      [
        movement('WD-ONE', { amount: '84000.00', occurredFrom: minutes(5), occurredTo: minutes(5), note: 'to HDFC' }),
        movement('WD-A', { amount: '100.00', occurredFrom: minutes(1), occurredTo: minutes(2) }),
        movement('WD-B', { amount: '200.00', occurredFrom: minutes(3), occurredTo: minutes(3) }),
        movement('TOP-BANK', { currency: 'NGN', direction: 'in', kind: 'top_up', amount: '5000.00' }),
        movement('TOP-USDT', {
          currency: 'NGN',
          direction: 'in',
          kind: 'top_up',
          amount: '1500000.00',
          usdtAmount: '1000',
          usdtRate: '1500',
        }),
      ],
      { recordedBy: 'asha', source: 'import:treasury.csv', at },
    );
    for (const m of written) {
      const r = await approveMovement(trx, m.reference, 'ben', at);
      if (r.kind !== 'approved') throw new Error(r.kind);
      stored.set(m.reference, r.movement);
    }
    const line = {
      bankAccount: 'IN01',
      bookedOn: '2026-11-27',
      valueOn: null,
      currency: 'INR',
      direction: 'credit' as const,
      description: '',
    };
    await insertStatementLines(
      trx,
      [
        { ...line, lineId: 'L1', amount: '83975.00', refs: ['WD-ONE'] },
        { ...line, lineId: 'L2', amount: '300.00', refs: ['WD-A', 'WD-B'] },
      ],
      { source: 'test', at },
    );
    const ids = Object.fromEntries(
      (await trx('statement_lines').select('id', 'line_id')).map((r: { id: string; line_id: string }) => [r.line_id, String(r.id)]),
    );
    await insertStatementMatches(
      trx,
      [
        { lineId: ids.L1, movementIds: [stored.get('WD-ONE')!.id], kind: 'one_to_one', difference: '-25.00' },
        { lineId: ids.L2, movementIds: [stored.get('WD-A')!.id, stored.get('WD-B')!.id], kind: 'many_to_one', difference: '0' },
      ],
      at,
    );
  });
});
afterAll(() => t?.drop());

const counted = (reference: string, timing = false) => {
  const m = stored.get(reference)!;
  const effect = m.direction === 'in' ? m.amount : `-${m.amount}`;
  return { id: m.id, reference, kind: m.kind, effect, usdtAmount: m.usdtAmount, usdtRate: m.usdtRate, timing };
};
// Only what the table reads of a roll-forward: the movements it counted.
const rollForward = (movements: ReturnType<typeof counted>[]) => ({ movements }) as unknown as SnapshotRollForward;

it('lists the counted movements by currency and moment with approval, USDT leg, how counted and the bank match', async () => {
  const results = new Map<string, SnapshotRollForward | null>([
    ['INR', rollForward([counted('WD-ONE'), counted('WD-B'), counted('WD-A', true)])],
    ['NGN', rollForward([counted('TOP-USDT'), counted('TOP-BANK')])],
    ['IDR', null],
  ]);
  const table = await t.db.knex.transaction((trx) => movementsTable(trx, ['IDR', 'INR', 'NGN'], results));
  const col = (name: string) => MOVEMENTS_TABLE.columns.findIndex((c) => c.name === name);
  const pick = (names: string[]) => table.rows.map((r) => names.map((n) => r[col(n)]));
  expect(pick(['currency', 'reference', 'effect', 'counted', 'statement', 'statement_line', 'bank_difference'])).toEqual([
    ['INR', 'WD-A', '-100.00', 'timing item', 'matched, many-to-one', 'IN01 L2', '0'],
    ['INR', 'WD-B', '-200.00', 'between snapshots', 'matched, many-to-one', 'IN01 L2', '0'],
    ['INR', 'WD-ONE', '-84000.00', 'between snapshots', 'matched', 'IN01 L1', '-25.00'],
    ['NGN', 'TOP-BANK', '5000.00', 'between snapshots', 'unmatched', null, null],
    ['NGN', 'TOP-USDT', '1500000.00', 'between snapshots', 'no bank leg', null, null],
  ]);
  expect(pick(['recorded_by', 'approved_by', 'source'])).toEqual(new Array(5).fill(['asha', 'ben', 'import:treasury.csv']));
  const usdt = table.rows.find((r) => r[col('reference')] === 'TOP-USDT')!;
  expect([usdt[col('usdt_amount')], usdt[col('usdt_rate')]]).toEqual(['1000', '1500']);
  expect(table.rows.find((r) => r[col('reference')] === 'WD-A')![col('occurred_to')]).toBe(at.getTime() + 2 * 60_000);
});

it('an empty day says so in its notes', async () => {
  const table = await t.db.knex.transaction((trx) => movementsTable(trx, ['INR'], new Map([['INR', rollForward([])]])));
  expect(table.rows).toEqual([]);
  expect(table.notes?.[0]).toMatch(/No recorded, approved movement moved the balance this day/);
});
