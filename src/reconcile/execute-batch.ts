import { selectDueOrders, selectOrdersByIds, type CheckedOrderRow } from '../db/orders.ts';
import { findRun } from '../db/runs.ts';
import { claimBatch, completeRunIfDone, finishBatch } from '../db/queue.ts';
import { notificationStates } from '../db/webhook-events.ts';
import type { Direction } from '../domain/types.ts';
import { isFinalCategory } from '../domain/status.ts';
import type { NotificationFacts, ProviderAnswer } from '../recon/types.ts';
import { checkOrder, refusedCheck, type CheckToWrite } from './check-order.ts';
import { fetchAnswer } from './fetch-answer.ts';
import { runOrderedPipeline } from './ordered-pipeline.ts';
import { filterFor } from './order-pages.ts';
import type { ReconcileDeps } from './reconcile-deps.ts';
import type { Selection } from './selection.ts';
import { writeBatch } from './write-batch.ts';

/** One batch of a queued reconcile run, as its job carries it. */
export interface BatchJob {
  account: string;
  runId: string;
  batch: number;
  direction: Direction;
  ids: string[];
}

export type BatchOutcome =
  | { status: 'written'; checked: number; lost: number; runCompleted: boolean; ms: BatchStageMs }
  /** Already written (the job ran again after its write committed), or its run is no longer running. */
  | { status: 'nothing_to_do'; reason: string };

/** Where a batch's time went (logged with it): reading its orders, fetching and comparing them, writing them. */
interface BatchStageMs {
  read: number;
  fetch: number;
  write: number;
}

/** The batch's claim was superseded (this worker was presumed dead): its write is rolled back, nothing of it stored. */
export class ClaimLostError extends Error {}

/**
 * Runs one batch of a queued run on a worker: claim it, read its orders (a due sweep's still due),
 * fetch and compare them, and write the checks with the batch's done mark in one transaction, only
 * while this worker's claim is the latest. A throw leaves the batch unwritten: the queue retries it.
 * Orders another writer changed under the batch are left due for the next run, as a run does after its rechecks.
 */
export async function executeBatch(deps: ReconcileDeps, job: BatchJob, workerId: string): Promise<BatchOutcome> {
  const started = performance.now();
  const run = await findRun(deps.db.knex, job.runId);
  if (!run || run.status !== 'running') return { status: 'nothing_to_do', reason: `run ${job.runId} is ${run?.status ?? 'gone'}` };
  const attempt = await claimBatch(deps.db.knex, job.runId, job.batch, workerId, deps.clock());
  if (attempt === null) return { status: 'nothing_to_do', reason: `batch ${job.batch} of run ${job.runId} is already written` };
  const selection = (run.params as { selection: Selection }).selection;
  // The batch's ids are its account's; the filter says so again, so no other account's order is checked with this account's client.
  const filter = { ...filterFor(selection, deps.policy), accountId: job.account };
  const orders =
    filter.mode === 'due'
      ? await selectDueOrders(deps.db.knex, job.direction, filter, job.ids)
      : await selectOrdersByIds(deps.db.knex, job.direction, job.ids);
  const notified = await notificationsOf(deps, job.direction, orders);
  let result: { done: CheckToWrite[]; lost: unknown[] } = { done: [], lost: [] };
  const fetching = performance.now();
  let writing = fetching;
  const write = async (page: CheckedOrderRow[], checks: CheckToWrite[]) => {
    writing = performance.now();
    const now = deps.clock();
    result = await writeBatch(deps.db, {
      run,
      direction: job.direction,
      entries: page.map((order, i) => ({ order, checked: checks[i] })),
      now,
      checkpointId: null,
      refused: (order, message) => refusedCheck(order, message, deps.policy, now),
      alsoInTransaction: async (trx) => {
        if (!(await finishBatch(trx, job.runId, job.batch, { workerId, attempt }, now))) {
          throw new ClaimLostError(`batch ${job.batch} of run ${job.runId} was handed to another worker; not written here`);
        }
      },
    });
  };
  await runOrderedPipeline<CheckedOrderRow, { answer: ProviderAnswer; askedAt: Date }, CheckToWrite>(
    oneBatch(orders),
    (order) => fetchOne(deps, job.direction, selection, order),
    (order, fetched) => checkOrder(order, fetched.answer, deps.policy, deps.clock(), fetched.askedAt, notified(order)),
    write,
    { concurrency: deps.concurrency },
  );
  if (orders.length === 0) {
    // Every order of the batch stopped being due (a webhook made it final): the batch is done, with nothing to check.
    await deps.db.knex.transaction(async (trx) => {
      if (!(await finishBatch(trx, job.runId, job.batch, { workerId, attempt }, deps.clock()))) throw new ClaimLostError('batch handed on');
    });
  }
  if (deps.onChecked) for (const c of result.done) deps.onChecked(job.direction, c.result.verdict, 1);
  const completed = await completeRunIfDone(deps.db.knex, job.runId, deps.clock());
  const ms = { read: fetching - started, fetch: writing - fetching, write: performance.now() - writing };
  return {
    status: 'written',
    checked: result.done.length,
    lost: result.lost.length,
    runCompleted: completed !== null,
    ms: { read: Math.round(ms.read), fetch: Math.round(ms.fetch), write: Math.round(ms.write) },
  };
}

async function* oneBatch(orders: CheckedOrderRow[]): AsyncGenerator<CheckedOrderRow[]> {
  if (orders.length > 0) yield orders;
}

/** A credentials refusal or a provider refusing everything with 429 fails the job: the queue retries it later. */
async function fetchOne(
  deps: ReconcileDeps,
  direction: Direction,
  selection: Selection,
  order: CheckedOrderRow,
): Promise<{ answer: ProviderAnswer; askedAt: Date }> {
  const askedAt = deps.clock();
  const urgent = selection.mode === 'ref' || selection.mode === 'range';
  const outcome = await fetchAnswer(
    deps.fetcher,
    direction,
    order.transactionRef,
    urgent ? 'urgent' : isFinalCategory(order.statusCategory) ? 'recheck' : 'sweep',
  );
  if ('credentials' in outcome) throw outcome.credentials;
  if (outcome.throttled) throw new Error('the provider refused calls with 429 past PROVIDER_MAX_THROTTLED_MS; the batch is retried later');
  return { answer: outcome.answer, askedAt };
}

async function notificationsOf(
  deps: ReconcileDeps,
  direction: Direction,
  orders: readonly CheckedOrderRow[],
): Promise<(order: CheckedOrderRow) => NotificationFacts> {
  const states = await notificationStates(
    deps.db.knex,
    direction,
    orders.map((o) => o.transactionRef),
  );
  return (order) => {
    const state = states.get(order.transactionRef);
    return {
      received: state?.received ?? false,
      conflict: state?.conflict ?? null,
      expected: deps.webhooks?.expect ?? false,
      marginMs: deps.webhooks?.marginMs ?? 0,
    };
  };
}
