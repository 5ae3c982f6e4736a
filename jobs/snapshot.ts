// Thin entry of the snapshot job: config, dependencies, a call into src/, an exit code.
import { openJobContext, type JobContextOptions } from '../src/runtime/job-context.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import type { ProviderClientOptions } from '../src/provider/client.ts';
import { snapshotPolicyFromConfig } from '../src/snapshot/policy.ts';
import { takeSnapshots, type SnapshotResult } from '../src/snapshot/take-snapshots.ts';
import { EXIT } from '../src/commands/exit-codes.ts';
import { raiseAndDeliver } from '../src/runtime/alerting.ts';
import { alertForDrift, alertForFailedRun, alertForRateFlags } from '../src/notify/alert-builders.ts';
import type { AlertInput } from '../src/notify/raise-alert.ts';
import { openOrderChecker } from '../src/snapshot/open-orders.ts';
import { policyFromConfig } from '../src/runner/policy-from-config.ts';
import { loadActiveBankCodes } from '../src/db/bank-codes.ts';

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
      const clock = options.clock ?? (() => new Date());
      const checkOpenOrders = openOrderChecker(
        {
          db,
          fetcher: client,
          policy: policyFromConfig(config, await loadActiveBankCodes(db.knex)),
          clock,
          logger,
          concurrency: config.RECON_CONCURRENCY,
          batchSize: config.RECON_BATCH_SIZE,
          webhooks: { expect: config.WEBHOOK_EXPECTED, marginMs: config.WEBHOOK_MISSING_MARGIN_MIN * 60_000 },
        },
        { lookbackDays: config.RECON_LOOKBACK_DAYS },
      );
      const result = await takeSnapshots(
        { db, client, policy: snapshotPolicyFromConfig(config), clock, logger, checkOpenOrders },
        config.RECON_CURRENCIES,
      );
      // Drift and rate flags are findings to alert on, not a failure of the run.
      await raiseAndDeliver({ db, config, logger, now: options.clock ?? (() => new Date()) }, alertsFor(result));
      const ok = result.status === 'completed' || result.status === 'skipped';
      return { exitCode: ok ? EXIT.OK : EXIT.INCOMPLETE, result };
    } finally {
      await client.close();
    }
  } finally {
    await ctx.close();
  }
}

/** BALANCE_DRIFT per currency, rate flags, and a run that could not complete. */
function alertsFor(result: SnapshotResult): AlertInput[] {
  const alerts: AlertInput[] = result.drift.map((d) =>
    alertForDrift(
      {
        currency: d.currency,
        drift: d.drift,
        tolerance: d.tolerance,
        expectedClosing: d.finding.local ?? undefined,
        closing: d.finding.provider ?? undefined,
      },
      result.runId,
    ),
  );
  for (const r of result.rateFlags) {
    const alert = alertForRateFlags(r.currency, r, result.runId);
    if (alert) alerts.push(alert);
  }
  if (result.status === 'credentials' || result.status === 'provider_unavailable' || result.status === 'failed') {
    alerts.push(alertForFailedRun('snapshot', result.status, result.error ?? result.status, result.runId));
  }
  return alerts;
}
