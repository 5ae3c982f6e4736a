import type { Logger } from 'pino';
import { countOrders, selectOrdersByIds, type OrderFilter, type CheckedOrderRow } from '../db/orders.ts';
import { finishRun, setRunSelected, type RunRow, type RunStatus } from '../db/runs.ts';
import type { HeldLock } from '../db/locks.ts';
import { notificationStates } from '../db/webhook-events.ts';
import type { Direction } from '../domain/types.ts';
import type { Verdict } from '../domain/verdicts.ts';
import { isFinalCategory } from '../domain/status.ts';
import type { BudgetPriority } from '../provider/rate-limit.ts';
import type { NotificationFacts, ProviderAnswer } from '../recon/types.ts';
import { checkOrder, refusedCheck, type CheckToWrite } from './check-order.ts';
import { fetchAnswer } from './fetch-answer.ts';
import { runOrderedPipeline } from './ordered-pipeline.ts';
import { filterFor, pagesOf } from './order-pages.ts';
import type { ReconcileDeps, RunSummary } from './reconcile-deps.ts';
import { RunState } from './run-state.ts';
import type { Selection } from './selection.ts';
import { writeBatch, type BatchToWrite } from './write-batch.ts';
import { errorOf } from '../domain/errors.ts';

const DIRECTIONS: readonly Direction[] = ['payment', 'payout'];
/** How often an order that another writer keeps changing is checked again within one batch. */
const RECHECK_ATTEMPTS = 3;
const LOCK_LOST = 'lost the job lock (the database connection was closed); the run is left for the next start to resume';

/** What every stage of one run reads: its inputs (never reassigned) and its state (the one mutable value). */
interface Run {
  deps: ReconcileDeps;
  lock: HeldLock;
  log: Logger;
  filter: OrderFilter;
  state: RunState;
}

/**
 * One direction's pass over the run's orders. `notified` holds what the webhook receiver stored for
 * the orders of the pages in flight that have any, loaded once per page so the core judges the webhook
 * codes with every other finding; dropped once the page is written. Every other order gets `quiet`:
 * the run's settings are the same for all of them, so it is built once per pass, not once per order.
 */
interface Pass extends Run {
  direction: Direction;
  notified: Map<string, NotificationFacts>;
  quiet: NotificationFacts;
}

/** A provider answer and when it was asked for, waiting for its comparison. */
type Fetched = { answer: ProviderAnswer; askedAt: Date };

/**
 * Runs one run to its end, in this order: count the selection (a fresh run), then for each direction
 * page through the orders (fetch, compare, write each batch with its checkpoint, recheck orders changed
 * underneath), then finish the run row: completed, stopped, or failed.
 */
export async function executeRun(deps: ReconcileDeps, row: RunRow, resumed: boolean, lock: HeldLock): Promise<RunSummary> {
  const selection = (row.params as { selection: Selection }).selection;
  const run: Run = {
    deps,
    lock,
    log: deps.logger.child({ runId: row.id }),
    filter: filterFor(selection, deps.policy),
    state: new RunState(row, resumed, selection),
  };
  const directions = DIRECTIONS.filter((d) => !selection.kind || selection.kind === d);
  await countSelected(run, directions);
  run.log.info({ selection, selected: run.state.selected, dryRun: row.dryRun, resumed }, 'reconcile run started');
  try {
    for (const direction of directions) {
      if (stopped(run)) break;
      await reconcileDirection({ ...run, direction, notified: new Map(), quiet: notificationFacts(deps, undefined) });
    }
  } catch (err) {
    return failRun(run, errorOf(err));
  }
  return endRun(run);
}

/** A fresh run (or a resumed one that never got that far) counts what it selected, for progress. */
async function countSelected({ deps, filter, state }: Run, directions: readonly Direction[]): Promise<void> {
  if (state.resumed && state.selected !== 0) return;
  state.selected = 0;
  for (const d of directions) state.selected += await countOrders(deps.db.knex, d, filter);
  await setRunSelected(deps.db.knex, state.run.id, state.selected);
}

/** Without the lock another process may resume this run at its checkpoint: stop writing at once. */
function stopped({ deps, lock, state }: Run): boolean {
  return state.halt !== null || deps.stopSignal?.aborted === true || lock.lost.aborted;
}

async function reconcileDirection(pass: Pass): Promise<void> {
  const after = (pass.state.run.checkpoint[pass.direction] as string | undefined) ?? null;
  await runOrderedPipeline<CheckedOrderRow, Fetched | null, CheckToWrite | null>(
    pagesWithNotifications(pass, after),
    (order) => fetchOne(pass, order),
    (order, fetched) => compareOne(pass, order, fetched),
    (page, results) => commitPage(pass, page, results),
    { concurrency: pass.deps.concurrency, shouldStop: () => stopped(pass) },
  );
}

async function* pagesWithNotifications(pass: Pass, after: string | null): AsyncGenerator<CheckedOrderRow[]> {
  for await (const page of pagesOf(pass.deps.db, pass.direction, pass.filter, after, pass.deps.batchSize)) {
    await loadNotified(pass, page);
    yield page;
  }
}

async function loadNotified({ deps, direction, notified }: Pass, orders: readonly CheckedOrderRow[]): Promise<void> {
  const states = await notificationStates(
    deps.db.knex,
    direction,
    orders.map((o) => o.transactionRef),
  );
  for (const [ref, state] of states) notified.set(ref, notificationFacts(deps, state));
}

/** What the core is told of an order's notifications: what was stored (none: `state` undefined) and the run's webhook settings. */
function notificationFacts(deps: ReconcileDeps, state: { received: boolean; conflict: string | null } | undefined): NotificationFacts {
  return {
    received: state?.received ?? false,
    conflict: state?.conflict ?? null,
    expected: deps.webhooks?.expect ?? false,
    marginMs: deps.webhooks?.marginMs ?? 0,
  };
}

/** Stage one holds a concurrency slot: the fetch, and what must stop the run at once. Null: nothing learnt. */
async function fetchOne({ deps, direction, state }: Pass, order: CheckedOrderRow): Promise<Fetched | null> {
  if (state.halt) return null;
  const askedAt = deps.clock();
  const outcome = await fetchAnswer(deps.fetcher, direction, order.transactionRef, budgetPriority(state.selection, order));
  if ('credentials' in outcome) {
    state.haltOnce({ status: 'credentials', message: outcome.credentials.message });
    return null;
  }
  // A call cut short by a stop request learnt nothing: its batch is not written, the order stays due.
  if (outcome.failed && deps.stopSignal?.aborted) return null;
  state.failures.record(outcome.failed);
  const last = outcome.answer.kind === 'error' ? outcome.answer.message : 'n/a';
  if (outcome.throttled) {
    state.haltOnce({
      status: 'provider_unavailable',
      message: `the provider refused calls with 429 (too many requests) past the client's bound (PROVIDER_MAX_THROTTLED_MS); last: ${last}`,
    });
  }
  if (state.failures.tripped) {
    state.haltOnce({ status: 'provider_unavailable', message: `the provider failed most recent fetches (last: ${last})` });
  }
  return { answer: outcome.answer, askedAt };
}

/**
 * What this fetch is for when the provider budget is short: a rerun someone asked for comes first,
 * the due sweep next, and its low-rate re-check of final orders last.
 */
function budgetPriority(selection: Selection, order: CheckedOrderRow): BudgetPriority {
  if (selection.mode === 'ref' || selection.mode === 'range') return 'urgent';
  return isFinalCategory(order.statusCategory) ? 'recheck' : 'sweep';
}

/** Stage two, once the slot is free: the comparison and the rows to write. */
function compareOne({ deps, notified, quiet }: Pass, order: CheckedOrderRow, fetched: Fetched | null): CheckToWrite | null {
  return (
    fetched && checkOrder(order, fetched.answer, deps.policy, deps.clock(), fetched.askedAt, notified.get(order.transactionRef) ?? quiet)
  );
}

/** Stage three, strictly in page order: write the batch and move the checkpoint past it. */
async function commitPage(pass: Pass, page: CheckedOrderRow[], results: Array<CheckToWrite | null>): Promise<void> {
  const { deps, lock, log, state } = pass;
  // A batch cut short by a stop is not written: its orders stay due for the next run.
  if (state.halt || lock.lost.aborted || results.some((r) => r === null)) return;
  const first = await writeChecks(pass, entriesOf(page, results as CheckToWrite[]), page[page.length - 1].id);
  const lost = await recheckLost(pass, first);
  for (const o of page) pass.notified.delete(o.transactionRef);
  if (lost.length > 0) {
    log.warn(
      { transactionRefs: lost.map((e) => e.order.transactionRef) },
      'orders kept changing under this run; left unchecked for the next one',
    );
  }
  deps.onProgress?.({ runId: state.run.id, selected: state.selected, checked: state.checked, mismatches: state.mismatches });
}

/**
 * Orders changed by another writer (a confirmed webhook, the merchant) between this run's read and its
 * write were not overwritten: they are checked again as they are now. Returns those still changing.
 */
async function recheckLost(pass: Pass, lost: BatchToWrite['entries']): Promise<BatchToWrite['entries']> {
  for (let attempt = 1; lost.length > 0 && attempt <= RECHECK_ATTEMPTS && !stopped(pass); attempt++) {
    const fresh = await selectOrdersByIds(
      pass.deps.db.knex,
      pass.direction,
      lost.map((e) => e.order.id),
    );
    await loadNotified(pass, fresh);
    const again = await Promise.all(fresh.map(async (order) => compareOne(pass, order, await fetchOne(pass, order))));
    if (again.some((c) => c === null)) break;
    lost = await writeChecks(pass, entriesOf(fresh, again as CheckToWrite[]), null);
  }
  return lost;
}

function entriesOf(orders: readonly CheckedOrderRow[], checks: readonly CheckToWrite[]): BatchToWrite['entries'] {
  return checks.map((checked, i) => ({ order: orders[i], checked }));
}

/** Writes checks in one transaction and counts what was written; returns the entries another writer changed. */
async function writeChecks(pass: Pass, entries: BatchToWrite['entries'], checkpointId: string | null): Promise<BatchToWrite['entries']> {
  const { deps, direction, state } = pass;
  const now = deps.clock();
  const written = await writeBatch(deps.db, {
    run: state.run,
    direction,
    entries,
    now,
    checkpointId,
    refused: (order, message) => refusedCheck(order, message, deps.policy, now),
  });
  state.record(written.done);
  if (deps.onChecked) for (const [verdict, n] of verdictCounts(written.done)) deps.onChecked(direction, verdict, n);
  return written.lost;
}

/** How many of a batch's checks got each verdict. */
function verdictCounts(done: readonly CheckToWrite[]): Map<Verdict, number> {
  const counts = new Map<Verdict, number>();
  for (const c of done) counts.set(c.result.verdict, (counts.get(c.result.verdict) ?? 0) + 1);
  return counts;
}

/**
 * Whether the run row is still ours to finish is the lock's question, asked of the lock's own
 * connection: a dropped connection (a server restart, terminated sessions) often reaches the batch's
 * query before the lock's connection has reported its own end. Without the lock the row stays resumable.
 */
async function failRun({ deps, lock, log, state }: Run, err: Error): Promise<RunSummary> {
  const held = await lock.stillHeld();
  const message = held ? err.message : LOCK_LOST;
  log.error({ err: message }, 'reconcile run failed');
  if (held) await finishRun(deps.db.knex, state.run.id, 'failed', state.counts, message, deps.clock()).catch(() => undefined);
  return state.summary('failed', message);
}

async function endRun({ deps, lock, log, state }: Run): Promise<RunSummary> {
  if (lock.lost.aborted) {
    log.error({ checked: state.checked }, LOCK_LOST);
    return state.summary('failed', LOCK_LOST);
  }
  const { halt, selected, checked, counts } = state;
  const status: Exclude<RunStatus, 'running'> = halt ? halt.status : deps.stopSignal?.aborted ? 'interrupted' : 'completed';
  const error = halt?.message ?? (status === 'interrupted' ? 'stopped by a signal; the next run resumes it' : null);
  await finishRun(deps.db.knex, state.run.id, status, counts, error, deps.clock());
  log.info({ status, selected, checked, counts }, 'reconcile run finished');
  return state.summary(status, error);
}
