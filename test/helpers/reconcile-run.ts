import type { World } from './world.ts';
import type { ProviderClient } from '../../src/provider/client.ts';
import { reconcile, type ReconcileDeps } from '../../src/reconcile/reconcile.ts';
import { buildSelection, type SelectionRequest } from '../../src/reconcile/selection.ts';
import { policyFromConfig } from '../../src/reconcile/policy-from-config.ts';
import { loadActiveBankCodes } from '../../src/db/bank-codes.ts';
import { silentLogger } from '../../src/log/logger.ts';

export interface RunOptions {
  request?: SelectionRequest;
  /** The runner's and the selection's clock; pass a fixed one so no date comes from the wall clock. */
  clock: () => Date;
  dryRun?: boolean;
  batchSize?: number;
  concurrency?: number;
  /** The due sweep's low-rate re-check of final orders, in days (off when unset). */
  finalRecheckDays?: number;
  /** Another client than the world's (a faulty one, for example). */
  fetcher?: ProviderClient;
  /** What the metrics are told of the checks written. */
  onChecked?: ReconcileDeps['onChecked'];
}

/** One reconcile run of the world's database against its sandbox, as the job would run it, in UTC. */
export async function reconcileWorld(world: World, opts: RunOptions) {
  const { config, t } = world;
  return reconcile(
    {
      db: t.db,
      fetcher: opts.fetcher ?? world.client,
      policy: policyFromConfig(config, await loadActiveBankCodes(t.db.knex)),
      clock: opts.clock,
      logger: silentLogger,
      concurrency: opts.concurrency ?? 8,
      batchSize: opts.batchSize ?? 50,
      onChecked: opts.onChecked,
    },
    {
      selection: buildSelection(opts.request ?? {}, {
        now: opts.clock(),
        zone: 'UTC',
        lookbackDays: 30,
        finalRecheckDays: opts.finalRecheckDays,
      }),
      dryRun: opts.dryRun ?? false,
    },
  );
}
