// RECON_FIRST_CHECK_* and SNAPSHOT_OPEN_CHECK=due: which open orders the due sweep and the snapshot's
// bracketing check select, on a fixed clock, against a real database.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrders, selectOrdersPage, type NewOrder, type OrderFilter } from '../src/db/orders.ts';
import type { Direction } from '../src/domain/types.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const NOW = new Date('2024-06-01T12:00:00Z');
const MIN = 60_000;
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * MIN);
const later = (minutes: number) => new Date(NOW.getTime() + minutes * MIN);
const FIRST_CHECK = { payment: 60 * MIN, payout: 20 * MIN };

/** Named open orders of one direction: age, and when a check last scheduled the next (null: never checked). */
const CASES: Array<{ name: string; createdAt: Date; nextCheckAt: Date | null }> = [
  { name: 'new, 2 min old', createdAt: ago(2), nextCheckAt: null },
  { name: 'new, 30 min old', createdAt: ago(30), nextCheckAt: null },
  { name: 'new, 2 h old', createdAt: ago(120), nextCheckAt: null },
  { name: 'checked, due 1 min ago', createdAt: ago(300), nextCheckAt: ago(1) },
  { name: 'checked, due in 10 min', createdAt: ago(300), nextCheckAt: later(10) },
  { name: 'checked, due in 3 h', createdAt: ago(300), nextCheckAt: later(180) },
];

describe.each(availableEngines)('first checks and the snapshot bracketing on %s', (engine) => {
  let t: TestDatabase;
  const ids: Record<Direction, Map<string, string>> = { payment: new Map(), payout: new Map() };
  beforeAll(async () => {
    t = await createTestDatabase(`first_check_${engine}`, { engine });
    for (const direction of ['payment', 'payout'] as const) {
      const rows: NewOrder[] = CASES.map((c) => ({
        merchantRef: randomUUID(),
        transactionRef: randomUUID(),
        currency: 'INR',
        method: direction === 'payment' ? 'UPI' : 'IMPS',
        amount: '100.00',
        createdAt: c.createdAt,
        nextCheckAt: c.nextCheckAt,
      }));
      const made = await insertOrders(t.db.knex, direction, rows);
      CASES.forEach((c, i) => ids[direction].set(made[i].id, c.name));
    }
  });
  afterAll(() => t?.drop());

  async function selected(direction: Direction, filter: OrderFilter): Promise<string[]> {
    const rows = await selectOrdersPage(t.db.knex, direction, filter, null, 100);
    return rows.map((r) => ids[direction].get(r.id)!).filter(Boolean);
  }
  const lookbackFrom = ago(7 * 24 * 60);

  it.each<[Direction, string[]]>([
    ['payment', ['new, 2 h old', 'checked, due 1 min ago']],
    ['payout', ['new, 30 min old', 'new, 2 h old', 'checked, due 1 min ago']],
  ])('the due sweep fetches a new %s only once it is old enough', async (direction, expected) => {
    expect(await selected(direction, { mode: 'due', asOf: NOW, lookbackFrom, firstCheckMs: FIRST_CHECK })).toEqual(expected);
  });

  it('without first-check delays every new order is due at once', async () => {
    expect(await selected('payout', { mode: 'due', asOf: NOW, lookbackFrom })).toEqual([
      'new, 2 min old',
      'new, 30 min old',
      'new, 2 h old',
      'checked, due 1 min ago',
    ]);
  });

  it.each<[Direction, string[]]>([
    ['payment', ['new, 2 h old', 'checked, due 1 min ago', 'checked, due in 10 min']],
    ['payout', ['new, 30 min old', 'new, 2 h old', 'checked, due 1 min ago', 'checked, due in 10 min']],
  ])('SNAPSHOT_OPEN_CHECK=due brackets the open %ss due within 15 minutes', async (direction, expected) => {
    const filter: OrderFilter = { mode: 'open', lookbackFrom, dueBy: later(15), firstCheckMs: FIRST_CHECK };
    expect(await selected(direction, filter)).toEqual(expected);
  });

  it('SNAPSHOT_OPEN_CHECK=all brackets every open order, due or not', async () => {
    expect(await selected('payment', { mode: 'open', lookbackFrom })).toEqual(CASES.map((c) => c.name));
  });
});
