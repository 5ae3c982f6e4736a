import { reconcile, type ReconcileDeps } from '../reconcile/reconcile.ts';
import type { Selection } from '../reconcile/selection.ts';

/** Long enough for a running sweep to finish; past it the snapshot goes on with wider intervals. */
export const OPEN_CHECK_WAIT_MS = 2 * 60_000;

/**
 * SNAPSHOT_OPEN_CHECK=due: the open orders due within this long, which the due sweep (every 15
 * minutes by default) would fetch soon anyway, so bracketing them costs few extra requests.
 */
export const DUE_WITHIN_MS = 15 * 60_000;

/** Which open orders the snapshot fetches around its readings (SNAPSHOT_OPEN_CHECK). */
export type OpenCheckMode = 'due' | 'all';

/**
 * The snapshot job's check of the open orders of the lookback window, once just before the balances
 * are read and once right after: a normal reconcile run (items, order updates, job_runs row) of
 * selection 'open', so each order's finality interval is narrowed to the moments around the readings.
 * Open means open in the merchant's books or at the provider, or never checked: an order the merchant
 * recorded final is asked about before the reading that would count it, since only the provider's word
 * moves the balance (docs/concepts/settlement-roll-forward.md).
 * Mode 'all' fetches every open order each time; 'due' only those due within DUE_WITHIN_MS, so an
 * order not due that turns final meanwhile straddles the reading and becomes a timing item.
 */
export function openOrderChecker(
  deps: ReconcileDeps,
  opts: { lookbackDays: number; mode?: OpenCheckMode; waitMs?: number; account?: string },
): (phase: 'before' | 'after') => Promise<void> {
  return async (phase) => {
    const now = deps.clock().getTime();
    const lookbackFrom = new Date(now - opts.lookbackDays * 86_400_000).toISOString();
    const dueBy = (opts.mode ?? 'all') === 'due' ? { dueBy: new Date(now + DUE_WITHIN_MS).toISOString() } : {};
    const account = opts.account !== undefined ? { account: opts.account } : {};
    const selection: Selection = { mode: 'open', lookbackFrom, ...dueBy, ...account };
    const outcome = await reconcile(deps, { selection, dryRun: false, waitMs: opts.waitMs ?? OPEN_CHECK_WAIT_MS });
    if (outcome.status !== 'completed') {
      deps.logger.warn(
        { phase, status: outcome.status, lockHolder: outcome.lockHolder },
        'open orders not checked around the balance readings; more orders become timing items',
      );
    }
  };
}
