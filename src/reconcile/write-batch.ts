import type { Knex } from '../db/knex-types.ts';
import type { Db } from '../db/connect.ts';
import { applyChecksWithItems } from '../db/check-writes.ts';
import { findRefusedValue, type CheckedOrderRow } from '../db/orders.ts';
import { describeRefusal, isValueRefusal } from '../db/refusal.ts';
import { checkpointRun, type RunRow } from '../db/runs.ts';
import type { Direction } from '../domain/types.ts';
import type { CheckToWrite } from './check-order.ts';
import { syncOrderCases, type OrderCheckForCases } from '../cases/sync-orders.ts';
import { countCheck, type RunCounts } from '../recon/run-counts.ts';

export interface BatchToWrite {
  run: RunRow;
  direction: Direction;
  /** The page's orders in id order, each with its check. */
  entries: ReadonlyArray<{ order: CheckedOrderRow; checked: CheckToWrite }>;
  now: Date;
  /** Where a killed run resumes once this batch is written; null for re-checks of orders already behind it. */
  checkpointId: string | null;
  /** The check to record instead when the database refuses what this order's check would write. */
  refused: (order: CheckedOrderRow, message: string) => CheckToWrite;
  /** Run last in the batch's transaction (a queued batch marks itself written there, or throws to roll the batch back). */
  alsoInTransaction?: (trx: Knex.Transaction) => Promise<void>;
}

export interface BatchWritten {
  /** The checks written, in order. */
  done: CheckToWrite[];
  /** Orders changed by someone else since they were read: nothing written for them, to be checked again. */
  lost: Array<BatchToWrite['entries'][number]>;
}

/**
 * Writes one batch (items, order updates, the run's checkpoint and counts) in one transaction. An
 * order's update applies only while the order is as its check saw it; an order changed meanwhile
 * gets no item and comes back in `lost`, for the caller to check again. When the database refuses a value (a constraint, an encoding, an
 * overflow: something parsing did not foresee) the batch is written again order by order, each in a
 * savepoint: the refused order gets an error item naming the field and value, the others are
 * written as checked. Any other failure (connection, lock) still stops the run.
 */
export async function writeBatch(db: Db, batch: BatchToWrite): Promise<BatchWritten> {
  try {
    return await db.knex.transaction(async (trx) => {
      const written = batch.run.dryRun
        ? { done: batch.entries.map((e) => e.checked), lost: [] }
        : await writeChecks(trx, batch, batch.entries);
      await checkpoint(trx, batch, written.done);
      return written;
    });
  } catch (err) {
    if (!isValueRefusal(err)) throw err;
  }
  return db.knex.transaction(async (trx) => {
    const written: BatchWritten = { done: [], lost: [] };
    for (const entry of batch.entries) {
      const one = await writeOne(trx, batch, entry);
      written.done.push(...one.done);
      written.lost.push(...one.lost);
    }
    await checkpoint(trx, batch, written.done);
    return written;
  });
}

/** Order updates and their items in one statement: only the orders still as their checks saw them get their items and case updates. */
async function writeChecks(trx: Knex.Transaction, batch: BatchToWrite, entries: BatchToWrite['entries']): Promise<BatchWritten> {
  const applied = new Set(
    await applyChecksWithItems(
      trx,
      batch.run,
      batch.direction,
      entries.map((e) => e.checked),
    ),
  );
  const kept = entries.filter((e) => applied.has(e.order.id));
  const done = kept.map((e) => e.checked);
  await syncOrderCases(
    trx,
    kept.map((e) => caseCheckOf(batch.run.accountId, e.order, e.checked)),
    batch.now,
  );
  return { done, lost: entries.filter((e) => !applied.has(e.order.id)) };
}

/** What the order's cases need of a check: a provider error saw nothing, NOT_FOUND saw only that. */
function caseCheckOf(accountId: string, order: CheckedOrderRow, c: CheckToWrite): OrderCheckForCases {
  const visibility = c.result.verdict === 'error' ? 'error' : c.result.codes.includes('NOT_FOUND') ? 'not_found' : 'found';
  return {
    accountId,
    direction: order.direction,
    orderId: order.id,
    merchantRef: order.merchantRef,
    transactionRef: order.transactionRef,
    currency: order.currency,
    createdAt: order.createdAt,
    visibility,
    findings: c.result.findings,
  };
}

async function writeOne(trx: Knex.Transaction, batch: BatchToWrite, entry: BatchToWrite['entries'][number]): Promise<BatchWritten> {
  try {
    return await trx.transaction((sp) => writeChecks(sp, batch, [entry]));
  } catch (err) {
    if (!isValueRefusal(err)) throw err;
    const value = await findRefusedValue(trx, batch.direction, entry.checked.update);
    const what = value ? `${value.field} ${JSON.stringify(value.value)}` : "a value of this order's check";
    const instead = batch.refused(entry.order, `${what} refused by the database (${describeRefusal(err)}); nothing of it was stored`);
    return writeChecks(trx, batch, [{ order: entry.order, checked: instead }]);
  }
}

async function checkpoint(trx: Knex.Transaction, batch: BatchToWrite, done: readonly CheckToWrite[]): Promise<void> {
  const position = batch.checkpointId === null ? {} : { [batch.direction]: batch.checkpointId };
  await checkpointRun(trx, batch.run.id, position, countDelta(done), done.length, batch.now);
  await batch.alsoInTransaction?.(trx);
}

/** What a batch adds to the run's counts. */
export function countDelta(done: readonly CheckToWrite[]): RunCounts {
  const delta: RunCounts = {};
  for (const { result } of done) countCheck(delta, result.verdict, result.codes);
  return delta;
}
