import { reconcile, type ReconcileDeps } from '../runner/reconcile.ts';
import type { Selection } from '../runner/selection.ts';

/** Long enough for a running sweep to finish; past it the snapshot goes on with wider intervals. */
export const OPEN_CHECK_WAIT_MS = 2 * 60_000;

/**
 * The snapshot job's check of every open order of the lookback window, once just before the balances
 * are read and once right after: a normal reconcile run (items, order updates, job_runs row) of
 * selection 'open', so each order's finality interval is narrowed to the moments around the readings.
 */
export function openOrderChecker(
  deps: ReconcileDeps,
  opts: { lookbackDays: number; waitMs?: number },
): (phase: 'before' | 'after') => Promise<void> {
  return async (phase) => {
    const lookbackFrom = new Date(deps.clock().getTime() - opts.lookbackDays * 86_400_000).toISOString();
    const selection: Selection = { mode: 'open', lookbackFrom };
    const outcome = await reconcile(deps, { selection, dryRun: false, waitMs: opts.waitMs ?? OPEN_CHECK_WAIT_MS });
    if (outcome.status !== 'completed') {
      deps.logger.warn(
        { phase, status: outcome.status, lockHolder: outcome.lockHolder },
        'open orders not checked around the balance readings; more orders become timing items',
      );
    }
  };
}
