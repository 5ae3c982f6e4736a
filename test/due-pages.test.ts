// The due sweep's pages (issue 30): the pass finds its due ids once and reads them a page at a time.
// Page boundaries, a resumed pass, and orders whose due-ness changes while the pass runs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrders, requestRecheck, type NewOrder, type OrderFilter, type CheckedOrderRow } from '../src/db/orders.ts';
import { pagesOf } from '../src/reconcile/order-pages.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const NOW = new Date('2024-06-01T12:00:00Z');
const MIN = 60_000;
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * MIN);
const FILTER: OrderFilter = { mode: 'due', asOf: NOW, lookbackFrom: ago(7 * 24 * 60) };

/** Due now (open, re-check time passed), or not (open, due in an hour; or final). */
function order(kind: 'due' | 'later' | 'final'): NewOrder {
  return {
    merchantRef: randomUUID(),
    transactionRef: randomUUID(),
    currency: 'INR',
    method: 'UPI',
    amount: '100.00',
    createdAt: ago(120),
    ...(kind === 'final' ? { status: 'Success', statusCategory: 'success', finalizedAt: ago(60) } : {}),
    nextCheckAt: kind === 'later' ? new Date(NOW.getTime() + 60 * MIN) : kind === 'due' ? ago(1) : null,
  };
}

async function collect(pages: AsyncGenerator<CheckedOrderRow[]>, each?: (page: CheckedOrderRow[]) => Promise<void>): Promise<string[][]> {
  const out: string[][] = [];
  for await (const page of pages) {
    out.push(page.map((o) => o.id));
    await each?.(page);
  }
  return out;
}

describe.each(availableEngines)('due sweep pages on %s', (engine) => {
  let t: TestDatabase;
  let due: string[];
  let other: string[];
  beforeAll(async () => {
    t = await createTestDatabase(`due_pages_${engine}`, { engine });
    // Due and not-due orders interleaved by id: 7 due, 7 not.
    const kinds = ['due', 'later', 'due', 'final', 'due', 'due', 'later', 'due', 'final', 'due', 'later', 'due', 'final', 'later'] as const;
    const made = await insertOrders(t.db.knex, 'payment', kinds.map(order));
    due = made.filter((_, i) => kinds[i] === 'due').map((o) => o.id);
    other = made.filter((_, i) => kinds[i] !== 'due').map((o) => o.id);
  });
  afterAll(() => t?.drop());

  it('reads every due order once, in id order, in pages of at most the size', async () => {
    const pages = await collect(pagesOf(t.db, 'payment', FILTER, null, 3));
    expect(pages).toEqual([due.slice(0, 3), due.slice(3, 6), due.slice(6)]);
  });

  it('a resumed pass starts just after its checkpoint', async () => {
    expect(await collect(pagesOf(t.db, 'payment', FILTER, due[3], 3))).toEqual([due.slice(4)]);
    expect(await collect(pagesOf(t.db, 'payment', FILTER, due[6], 3))).toEqual([]);
  });

  it('leaves out an order that stopped being due after the pass began; one that became due waits for the next run', async () => {
    const k = t.db.knex;
    const pages = await collect(pagesOf(t.db, 'payment', FILTER, null, 3), async (page) => {
      if (page[0].id !== due[0]) return;
      // While the first page is in flight: a webhook finalises a due order of the next page, and
      // someone asks to re-check a final order that the pass's ids do not hold.
      await k('payment_orders')
        .where({ id: due[4] })
        .update({ status: 'Success', status_category: 'success', finalized_at: NOW, next_check_at: null });
      expect(await requestRecheck(k, 'payment', other[3], ago(1))).toBe(1);
    });
    expect(pages).toEqual([due.slice(0, 3), [due[3], due[5]], [due[6]]]);
    // The next run sees the order asked for, and not the one made final.
    const next = (await collect(pagesOf(t.db, 'payment', FILTER, null, 100))).flat();
    expect(next).toContain(other[3]);
    expect(next).not.toContain(due[4]);
  });
});
