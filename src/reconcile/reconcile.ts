import { findResumableRun, createRun, takeOverRun, type RunStatus } from '../db/runs.ts';
import { withJobLockWaiting } from '../db/lock-wait.ts';
import { accountLockName } from '../db/locks.ts';
import { describeLockHolder, findLockHolder, stalledHolder, type StalledHolder } from '../db/lock-holder.ts';
import { executeRun } from './execute-run.ts';
import type { ReconcileDeps, RunSummary } from './reconcile-deps.ts';
import type { Selection } from './selection.ts';

// The module's public face: callers import the deps and a run's summary from here.
export type { ReconcileDeps, RunSummary } from './reconcile-deps.ts';

export const RECONCILE_JOB = 'reconcile';

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
  // Set only with several accounts configured: each account's runs under its own lock.
  const account = request.selection.account;
  const locked = await withJobLockWaiting(
    deps.db,
    accountLockName(RECONCILE_JOB, account),
    async (lock) => {
      const runs: RunSummary[] = [];
      const dead = await findResumableRun(deps.db.knex, RECONCILE_JOB, account);
      if (dead) {
        deps.logger.info({ runId: dead.id }, 'resuming a run that did not finish');
        // Now this process's run: the dead one's silence must not make it look stalled to a later run.
        await takeOverRun(deps.db.knex, dead.id, deps.clock());
        runs.push(await executeRun(deps, dead, true, lock));
        if (runs[0].status !== 'completed') return runs;
      }
      if (lock.lost.aborted) return runs;
      const params = { selection: request.selection };
      const accountId = account ?? deps.accountId;
      const run = await createRun(deps.db.knex, RECONCILE_JOB, params, {
        dryRun: request.dryRun,
        now: deps.clock(),
        ...(accountId !== undefined ? { accountId } : {}),
      });
      runs.push(await executeRun(deps, run, false, lock));
      return runs;
    },
    wait,
  );
  if (!locked.acquired) {
    const holder = await findLockHolder(deps.db, RECONCILE_JOB, account);
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
