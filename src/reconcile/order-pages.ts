import type { Db } from '../db/connect.ts';
import { selectDueIds, selectDueOrders, selectOrdersPage, type DueFilter, type OrderFilter, type CheckedOrderRow } from '../db/orders.ts';
import type { Direction } from '../domain/types.ts';
import type { ReconPolicy } from '../recon/types.ts';
import type { Selection } from './selection.ts';

/** The orders query for a run's stored selection (ISO strings in the run row, dates in the query). */
export function filterFor(selection: Selection, policy: ReconPolicy): OrderFilter {
  const currency = {
    ...(selection.currency ? { currency: selection.currency } : {}),
    ...(selection.account ? { accountId: selection.account } : {}),
  };
  switch (selection.mode) {
    case 'due':
      return {
        mode: 'due',
        asOf: new Date(selection.asOf),
        lookbackFrom: new Date(selection.lookbackFrom),
        ...(selection.finalRecheckBefore ? { finalRecheckBefore: new Date(selection.finalRecheckBefore) } : {}),
        firstCheckMs: policy.firstCheckMs,
        ...currency,
      };
    case 'range':
      return { mode: 'range', from: new Date(selection.from), to: new Date(selection.to), ...currency };
    case 'ref':
      return { mode: 'ref', ref: selection.ref, ...currency };
    case 'open':
      return {
        mode: 'open',
        lookbackFrom: new Date(selection.lookbackFrom),
        ...(selection.dueBy ? { dueBy: new Date(selection.dueBy), firstCheckMs: policy.firstCheckMs } : {}),
        ...currency,
      };
  }
}

/** The selected orders of one direction in id order, from just after the checkpoint. */
export async function* pagesOf(
  db: Db,
  direction: Direction,
  filter: OrderFilter,
  afterId: string | null,
  size: number,
): AsyncGenerator<CheckedOrderRow[]> {
  if (filter.mode === 'due') {
    yield* duePagesOf(db, direction, filter, afterId, size);
    return;
  }
  let cursor = afterId;
  for (;;) {
    const page = await selectOrdersPage(db.knex, direction, filter, cursor, size);
    if (page.length === 0) return;
    yield page;
    cursor = page[page.length - 1].id;
    if (page.length < size) return;
  }
}

/**
 * The due sweep finds its due ids once, when the pass starts, and reads them a page at a time, so a
 * run's selection costs about one reading of what is due (issue 30). An order that becomes due during
 * the pass is left for the next run; one that stopped being due is left out of its page. A resumed run
 * finds the ids after its checkpoint.
 */
async function* duePagesOf(
  db: Db,
  direction: Direction,
  filter: DueFilter,
  afterId: string | null,
  size: number,
): AsyncGenerator<CheckedOrderRow[]> {
  const ids = await selectDueIds(db.knex, direction, filter, afterId);
  for (let chunk = ids.next(size); chunk.length > 0; chunk = ids.next(size)) {
    const page = await selectDueOrders(db.knex, direction, filter, chunk);
    if (page.length > 0) yield page;
  }
}
