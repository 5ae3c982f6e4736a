import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { countOrders, selectOrdersByIds, selectOrdersPage, type OrderFilter, type OrderRow } from '../db/orders.ts';
import { createRun, findResumableRun, finishRun, setRunSelected, takeOverRun, type RunRow, type RunStatus } from '../db/runs.ts';
import { withJobLockWaiting } from '../db/lock-wait.ts';
import type { HeldLock } from '../db/locks.ts';
import { describeLockHolder, findLockHolder, stalledHolder, type StalledHolder } from '../db/lock-holder.ts';
import type { Direction } from '../domain/types.ts';
import type { BudgetPriority } from '../provider/rate-limit.ts';
import { isFinalCategory } from '../domain/status.ts';
import type { NotificationFacts, ProviderAnswer, ReconPolicy } from '../recon/types.ts';
import type { Verdict } from '../domain/verdicts.ts';
import { FailureWindow } from './failure-window.ts';
import { runOrderedPipeline } from './ordered-pipeline.ts';
import { fetchAnswer, type OrderFetcher } from './fetch-answer.ts';
import { checkOrder, refusedCheck, type CheckToWrite } from './check-order.ts';
import type { Selection } from './selection.ts';
import { countDelta, writeBatch, type BatchToWrite } from './write-batch.ts';
import { notificationStates } from '../db/webhook-events.ts';
import { verdictKey } from '../recon/run-counts.ts';

export const RECONCILE_JOB = 'reconcile';

export interface ReconcileDeps {
  db: Db;
  fetcher: OrderFetcher;
  policy: ReconPolicy;
  clock: () => Date;
  logger: Logger;
  concurrency: number;
  batchSize: number;
  /** Set (e.g. by SIGTERM) to stop taking new orders; written batches stay, the run stays resumable. */
  stopSignal?: AbortSignal;
  onProgress?: (progress: ReconcileProgress) => void;
  /** Told of each order whose check was written (metrics). */
  onChecked?: (direction: Direction, verdict: Verdict) => void;
  /** WEBHOOK_EXPECTED and WEBHOOK_MISSING_MARGIN_MIN: whether a missing notification is a finding. */
  webhooks?: { expect: boolean; marginMs: number };
  /** How often an explicit selection retries a held lock (default 1 s). */
  lockPollMs?: number;
  /**
   * RUN_STALL_AFTER_SECONDS in ms: a lock holder whose run has made no progress for longer is stalled,
   * and this call ends 'stalled' instead of skipping or waiting quietly. Unset: never judged stalled.
   */
  stallAfterMs?: number;
}

export interface ReconcileProgress {
  runId: string;
  selected: number;
  checked: number;
  mismatches: number;
}

/**
 * skipped: the due sweep found the lock held (the running one does its work). busy: an explicit selection waited in vain.
 * stalled: the lock's holder has made no progress for longer than stallAfterMs; nothing done.
 */
export type ReconcileStatus = RunStatus | 'skipped' | 'busy' | 'stalled';

export interface ReconcileOutcome {
  status: ReconcileStatus;
  /** Runs this call completed or advanced: a dead run resumed first, then the one asked for. */
  runs: RunSummary[];
  /**
   * With 'busy': who holds the lock and for how long, e.g. "run 42 (due sweep, pid 5120 on worker-1, …) has held the lock for 7m 3s".
   * With 'stalled': "run 42 (…) holds the lock and has made no progress for 7m 12s, since 2026-11-22T20:03:00Z".
   */
  lockHolder?: string;
  /** With 'stalled': the holder's run and its silence, for the alert and --json. */
  stall?: Omit<StalledHolder, 'description'>;
}

export interface RunSummary {
  runId: string;
  resumed: boolean;
  status: Exclude<RunStatus, 'running'>;
  selected: number;
  checked: number;
  counts: Record<string, number>;
  error: string | null;
  /** The first few mismatched orders, for alerts and the summary on screen. */
  examples: Array<{ merchantRef: string; transactionRef: string; codes: string[]; reason: string }>;
}

const DIRECTIONS: readonly Direction[] = ['payment', 'payout'];
const EXAMPLES_KEPT = 5;
/** How often an order that another writer keeps changing is checked again within one batch. */
const RECHECK_ATTEMPTS = 3;

/**
 * One reconcile invocation under the job's advisory lock: a run left behind by a killed process is
 * resumed from its checkpoint first (same run id, same selection, no order checked twice), then the
 * requested selection runs. The due sweep skips when the lock is held (the holder is doing the same
 * work); an explicit selection (a date, a range, a ref) is something a person or the daily job asked
 * for, so it waits up to waitMs and then ends 'busy', naming the holder, instead of silently doing nothing.
 */
export async function reconcile(
  deps: ReconcileDeps,
  request: { selection: Selection; dryRun: boolean; waitMs?: number },
): Promise<ReconcileOutcome> {
  const explicit = request.selection.mode !== 'due';
  const wait = {
    waitMs: explicit ? (request.waitMs ?? 0) : 0,
    pollMs: deps.lockPollMs,
    signal: deps.stopSignal,
    onWait: () => deps.logger.warn({ waitMs: request.waitMs }, 'another reconcile run holds the lock; waiting for it to finish'),
  };
  const locked = await withJobLockWaiting(
    deps.db,
    RECONCILE_JOB,
    async (lock) => {
      const runs: RunSummary[] = [];
      const dead = await findResumableRun(deps.db.knex, RECONCILE_JOB);
      if (dead) {
        deps.logger.info({ runId: dead.id }, 'resuming a run that did not finish');
        // Now this process's run: the dead one's silence must not make it look stalled to a later run.
        await takeOverRun(deps.db.knex, dead.id, deps.clock());
        runs.push(await executeRun(deps, dead, true, lock));
        if (runs[0].status !== 'completed') return runs;
      }
      if (lock.lost.aborted) return runs;
      const params = { selection: request.selection };
      const run = await createRun(deps.db.knex, RECONCILE_JOB, params, { dryRun: request.dryRun, now: deps.clock() });
      runs.push(await executeRun(deps, run, false, lock));
      return runs;
    },
    wait,
  );
  if (!locked.acquired) {
    const holder = await findLockHolder(deps.db, RECONCILE_JOB);
    const now = deps.clock();
    const stalled = deps.stallAfterMs === undefined ? null : stalledHolder(holder, now, deps.stallAfterMs);
    if (stalled) {
      // Past the threshold a quiet skip would hide a hung run (a partition leaves its session holding the lock).
      const { description: lockHolder, ...stall } = stalled;
      deps.logger.error({ lockHolder, stalledRunId: holder.runId }, 'the reconcile lock holder is stalled; nothing done');
      return { status: 'stalled', runs: [], lockHolder, stall };
    }
    if (!explicit) {
      deps.logger.info('another reconcile run holds the lock; skipping');
      return { status: 'skipped', runs: [] };
    }
    if (deps.stopSignal?.aborted) return { status: 'interrupted', runs: [] };
    const lockHolder = describeLockHolder(holder, now);
    deps.logger.error({ lockHolder }, 'gave up waiting for the reconcile lock');
    return { status: 'busy', runs: [], lockHolder };
  }
  const runs = locked.result!;
  return { status: runs[runs.length - 1].status, runs };
}

function filterFor(selection: Selection, policy: ReconPolicy): OrderFilter {
  const currency = selection.currency ? { currency: selection.currency } : {};
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

async function* pagesOf(
  db: Db,
  direction: Direction,
  filter: OrderFilter,
  afterId: string | null,
  size: number,
): AsyncGenerator<OrderRow[]> {
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
 * What this fetch is for when the provider budget is short: a rerun someone asked for comes first,
 * the due sweep next, and its low-rate re-check of final orders last.
 */
function budgetPriority(selection: Selection, order: OrderRow): BudgetPriority {
  if (selection.mode === 'ref' || selection.mode === 'range') return 'urgent';
  return isFinalCategory(order.statusCategory) ? 'recheck' : 'sweep';
}

/** A provider answer and when it was asked for, waiting for its comparison. */
type Fetched = { answer: ProviderAnswer; askedAt: Date };

type Stop = { status: 'credentials' | 'provider_unavailable'; message: string } | null;

const LOCK_LOST = 'lost the job lock (the database connection was closed); the run is left for the next start to resume';

async function executeRun(deps: ReconcileDeps, run: RunRow, resumed: boolean, lock: HeldLock): Promise<RunSummary> {
  const { db, logger } = deps;
  const lockLost = lock.lost;
  const log = logger.child({ runId: run.id });
  const selection = (run.params as { selection: Selection }).selection;
  const filter = filterFor(selection, deps.policy);
  const directions = DIRECTIONS.filter((d) => !selection.kind || selection.kind === d);
  const counts: Record<string, number> = { ...run.counts };
  let checked = run.checked;
  const examples: RunSummary['examples'] = [];
  // A holder, not a let: the pipeline's callbacks set it and TypeScript must not narrow it away.
  const halt: { stop: Stop } = { stop: null };
  const failures = new FailureWindow();

  let selected = run.selected;
  if (!resumed || selected === 0) {
    selected = 0;
    for (const d of directions) selected += await countOrders(db.knex, d, filter);
    await setRunSelected(db.knex, run.id, selected);
  }
  log.info({ selection, selected, dryRun: run.dryRun, resumed }, 'reconcile run started');

  // Without the lock another process may resume this run at its checkpoint: stop writing at once.
  const stopped = () => halt.stop !== null || deps.stopSignal?.aborted === true || lockLost.aborted;

  try {
    for (const direction of directions) {
      if (stopped()) break;
      const after = (run.checkpoint[direction] as string | undefined) ?? null;
      // What the webhook receiver stored for each order read, loaded once per page so the core judges
      // the webhook codes with every other finding; dropped once the page is written.
      const notified = new Map<string, NotificationFacts>();
      const loadNotified = async (orders: readonly OrderRow[]) => {
        const refs = orders.map((o) => o.transactionRef);
        const states = await notificationStates(db.knex, direction, refs);
        for (const ref of refs) {
          const state = states.get(ref);
          notified.set(ref, {
            received: state?.received ?? false,
            conflict: state?.conflict ?? null,
            expected: deps.webhooks?.expect ?? false,
            marginMs: deps.webhooks?.marginMs ?? 0,
          });
        }
      };
      async function* pagesWithNotifications(): AsyncGenerator<OrderRow[]> {
        for await (const page of pagesOf(db, direction, filter, after, deps.batchSize)) {
          await loadNotified(page);
          yield page;
        }
      }
      // Stage one holds a concurrency slot: the fetch, and what must stop the run at once.
      const fetchOne = async (order: OrderRow): Promise<Fetched | null> => {
        if (halt.stop) return null;
        const askedAt = deps.clock();
        const outcome = await fetchAnswer(deps.fetcher, direction, order.transactionRef, budgetPriority(selection, order));
        if ('credentials' in outcome) {
          halt.stop ??= {
            status: 'credentials',
            message: outcome.credentials.message,
          };
          return null;
        }
        // A call cut short by a stop request learnt nothing: its batch is not written, the order stays due.
        if (outcome.failed && deps.stopSignal?.aborted) return null;
        failures.record(outcome.failed);
        if (outcome.throttled && !halt.stop) {
          halt.stop = {
            status: 'provider_unavailable',
            message: `the provider refused calls with 429 (too many requests) past the client's bound (PROVIDER_MAX_THROTTLED_MS); last: ${outcome.answer.kind === 'error' ? outcome.answer.message : 'n/a'}`,
          };
        }
        if (failures.tripped && !halt.stop) {
          halt.stop = {
            status: 'provider_unavailable',
            message: `the provider failed most recent fetches (last: ${outcome.answer.kind === 'error' ? outcome.answer.message : 'n/a'})`,
          };
        }
        return { answer: outcome.answer, askedAt };
      };
      // Stage two, once the slot is free: the comparison and the rows to write.
      const finish = (order: OrderRow, fetched: Fetched | null): CheckToWrite | null =>
        fetched && checkOrder(order, fetched.answer, deps.policy, deps.clock(), fetched.askedAt, notified.get(order.transactionRef));
      const check = async (order: OrderRow): Promise<CheckToWrite | null> => finish(order, await fetchOne(order));
      const entriesOf = (orders: readonly OrderRow[], checks: readonly CheckToWrite[]) =>
        checks.map((checked, i) => ({ order: orders[i], checked }));
      const write = async (entries: BatchToWrite['entries'], checkpointId: string | null) => {
        const now = deps.clock();
        const written = await writeBatch(db, {
          run,
          direction,
          entries,
          now,
          checkpointId,
          refused: (order, message) => refusedCheck(order, message, deps.policy, now),
        });
        record(written.done);
        return written.lost;
      };
      const record = (done: readonly CheckToWrite[]) => {
        checked += done.length;
        for (const [k, v] of Object.entries(countDelta(done))) counts[k] = (counts[k] ?? 0) + v;
        for (const c of done) {
          deps.onChecked?.(direction, c.result.verdict);
          if (c.result.verdict === 'mismatch' && examples.length < EXAMPLES_KEPT) {
            examples.push({
              merchantRef: c.item.merchantRef,
              transactionRef: c.item.transactionRef,
              codes: c.result.codes,
              reason: c.result.reason,
            });
          }
        }
      };

      await runOrderedPipeline<OrderRow, Fetched | null, CheckToWrite | null>(
        pagesWithNotifications(),
        fetchOne,
        finish,
        async (page, results) => {
          // A batch cut short by a stop is not written: its orders stay due for the next run.
          if (halt.stop || lockLost.aborted || results.some((r) => r === null)) return;
          let lost = await write(entriesOf(page, results as CheckToWrite[]), page[page.length - 1].id);
          // Orders changed by another writer (a confirmed webhook, the merchant) between this run's read and
          // its write were not overwritten: they are checked again as they are now.
          for (let attempt = 1; lost.length > 0 && attempt <= RECHECK_ATTEMPTS && !stopped(); attempt++) {
            const fresh = await selectOrdersByIds(
              db.knex,
              direction,
              lost.map((e) => e.order.id),
            );
            await loadNotified(fresh);
            const again = await Promise.all(fresh.map(check));
            if (again.some((c) => c === null)) break;
            lost = await write(entriesOf(fresh, again as CheckToWrite[]), null);
          }
          for (const o of page) notified.delete(o.transactionRef);
          if (lost.length > 0) {
            log.warn(
              { transactionRefs: lost.map((e) => e.order.transactionRef) },
              'orders kept changing under this run; left unchecked for the next one',
            );
          }
          deps.onProgress?.({ runId: run.id, selected, checked, mismatches: counts[verdictKey('mismatch')] ?? 0 });
        },
        { concurrency: deps.concurrency, shouldStop: stopped },
      );
    }
  } catch (err) {
    // Whether the run row is still ours to finish is the lock's question, asked of the lock's own
    // connection: a dropped connection (a server restart, terminated sessions) often reaches the
    // batch's query before the lock's connection has reported its own end.
    const held = await lock.stillHeld();
    const message = held ? (err as Error).message : LOCK_LOST;
    log.error({ err: message }, 'reconcile run failed');
    // Without the lock the run row is not ours to finish: it stays resumable.
    if (held) await finishRun(db.knex, run.id, 'failed', counts, message, deps.clock()).catch(() => undefined);
    return { runId: run.id, resumed, status: 'failed', selected, checked, counts, error: message, examples };
  }
  if (lockLost.aborted) {
    log.error({ checked }, LOCK_LOST);
    return { runId: run.id, resumed, status: 'failed', selected, checked, counts, error: LOCK_LOST, examples };
  }

  const { stop } = halt;
  const status: Exclude<RunStatus, 'running'> = stop ? stop.status : deps.stopSignal?.aborted ? 'interrupted' : 'completed';
  const error = stop?.message ?? (status === 'interrupted' ? 'stopped by a signal; the next run resumes it' : null);
  await finishRun(db.knex, run.id, status, counts, error, deps.clock());
  log.info({ status, selected, checked, counts }, 'reconcile run finished');
  return { runId: run.id, resumed, status, selected, checked, counts, error, examples };
}
