import type { Knex } from 'knex';
import type { Db } from '../db/connect.ts';
import { insertItems } from '../db/items.ts';
import { applyCheckResults, findRefusedValue, type OrderRow } from '../db/orders.ts';
import { describeRefusal, isValueRefusal } from '../db/refusal.ts';
import { checkpointRun, type RunRow } from '../db/runs.ts';
import type { Direction } from '../provider/types.ts';
import type { CheckedOrder } from './check-order.ts';

export interface BatchToWrite {
  run: RunRow;
  direction: Direction;
  /** The page's orders in id order, each with its check. */
  entries: ReadonlyArray<{ order: OrderRow; checked: CheckedOrder }>;
  now: Date;
  /** The check to record instead when the database refuses what this order's check would write. */
  refused: (order: OrderRow, message: string) => CheckedOrder;
}

/**
 * Writes one batch (items, order updates, the run's checkpoint and counts) in one transaction, and
 * returns the checks as written. When the database refuses a value (a constraint, an encoding, an
 * overflow: something parsing did not foresee) the batch is written again order by order, each in a
 * savepoint: the refused order gets an error item naming the field and value, the others are
 * written as checked. Any other failure (connection, lock) still stops the run.
 */
export async function writeBatch(db: Db, batch: BatchToWrite): Promise<CheckedOrder[]> {
  try {
    return await db.knex.transaction(async (trx) => {
      const done = batch.entries.map((e) => e.checked);
      if (!batch.run.dryRun) await writeChecks(trx, batch, done);
      await checkpoint(trx, batch, done);
      return done;
    });
  } catch (err) {
    if (!isValueRefusal(err)) throw err;
  }
  return db.knex.transaction(async (trx) => {
    const done: CheckedOrder[] = [];
    for (const entry of batch.entries) done.push(await writeOne(trx, batch, entry));
    await checkpoint(trx, batch, done);
    return done;
  });
}

async function writeChecks(trx: Knex.Transaction, batch: BatchToWrite, checks: readonly CheckedOrder[]): Promise<void> {
  await insertItems(
    trx,
    checks.map((c) => ({ ...c.item, runId: batch.run.id })),
  );
  await applyCheckResults(
    trx,
    batch.direction,
    checks.map((c) => c.update),
  );
}

async function writeOne(trx: Knex.Transaction, batch: BatchToWrite, entry: BatchToWrite['entries'][number]): Promise<CheckedOrder> {
  try {
    await trx.transaction((sp) => writeChecks(sp, batch, [entry.checked]));
    return entry.checked;
  } catch (err) {
    if (!isValueRefusal(err)) throw err;
    const value = await findRefusedValue(trx, batch.direction, entry.checked.update);
    const what = value ? `${value.field} ${JSON.stringify(value.value)}` : "a value of this order's check";
    const instead = batch.refused(entry.order, `${what} refused by the database (${describeRefusal(err)}); nothing of it was stored`);
    await writeChecks(trx, batch, [instead]);
    return instead;
  }
}

async function checkpoint(trx: Knex.Transaction, batch: BatchToWrite, done: readonly CheckedOrder[]): Promise<void> {
  const last = batch.entries[batch.entries.length - 1].order.id;
  await checkpointRun(trx, batch.run.id, { [batch.direction]: last }, countDelta(done), done.length, batch.now);
}

/** Counts as stored on the run: `verdict:<v>` and `code:<CODE>` keys. */
export function countDelta(done: readonly CheckedOrder[]): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const { result } of done) {
    delta[`verdict:${result.verdict}`] = (delta[`verdict:${result.verdict}`] ?? 0) + 1;
    for (const code of result.codes) delta[`code:${code}`] = (delta[`code:${code}`] ?? 0) + 1;
  }
  return delta;
}
