// Thin entry of the snapshot job: config, dependencies, a call into src/, an exit code.
import { openJobContext, type JobContextOptions } from '../src/runtime/job-context.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import type { ProviderClientOptions } from '../src/provider/client.ts';
import { snapshotPolicyFromConfig } from '../src/snapshot/policy.ts';
import { takeSnapshots, type SnapshotResult } from '../src/snapshot/take-snapshots.ts';
import { EXIT } from '../src/commands/exit-codes.ts';

export interface SnapshotJobOptions {
  provider?: Partial<ProviderClientOptions>;
  /** taken_at source; tests pin it. */
  clock?: () => Date;
}

export interface SnapshotJobResult {
  exitCode: number;
  result: SnapshotResult;
}

export async function snapshotJob(options: SnapshotJobOptions = {}, context: JobContextOptions = {}): Promise<SnapshotJobResult> {
  const ctx = await openJobContext('snapshot', context);
  const { config, logger, db } = ctx;
  try {
    const client = await createProviderClient(config, { logger, ...options.provider });
    try {
      const result = await takeSnapshots(
        { db, client, policy: snapshotPolicyFromConfig(config), clock: options.clock ?? (() => new Date()), logger },
        config.RECON_CURRENCIES,
      );
      // Drift and rate flags are findings for the alert step, not a failure of the run.
      const ok = result.status === 'completed' || result.status === 'skipped';
      return { exitCode: ok ? EXIT.OK : EXIT.INCOMPLETE, result };
    } finally {
      await client.close();
    }
  } finally {
    await ctx.close();
  }
}
