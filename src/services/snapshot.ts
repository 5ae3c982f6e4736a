// The snapshot job: balances and rates, roll-forward, alerts for drift and flags, an exit status.
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import { loadConfig } from '../config/config.ts';
import { accountFor, apartOf } from '../config/accounts.ts';
import type { ProviderClientOptions } from '../provider/client.ts';
import { snapshotPolicyFromConfig } from '../snapshot/policy.ts';
import { takeSnapshots, type SnapshotResult } from '../snapshot/take-snapshots.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { raiseAndDeliver } from '../runtime/alerting.ts';
import { alertForDrift, alertForFailedRun, alertForRateFlags } from '../notify/alert-builders.ts';
import type { AlertInput } from '../notify/raise-alert.ts';
import { openOrderChecker } from '../snapshot/open-orders.ts';
import { policyFromConfig } from '../reconcile/policy-from-config.ts';
import { loadActiveBankCodes } from '../db/bank-codes.ts';
import { jobCompleted, type ClearedCause } from '../notify/resolve-alerts.ts';

export interface SnapshotJobOptions {
  provider?: Partial<ProviderClientOptions>;
  /** taken_at source; tests pin it. */
  clock?: () => Date;
  /** --account ID: required when several accounts are configured; the only one otherwise. */
  account?: string;
}

export interface SnapshotJobResult {
  exitCode: number;
  result: SnapshotResult;
}

export async function snapshotJob(options: SnapshotJobOptions = {}, context: JobContextOptions = {}): Promise<SnapshotJobResult> {
  const config = context.config ?? loadConfig();
  // The account's balances, read with its own client; with several, only its orders explain them.
  // With one account nothing is filtered or named: the run is exactly what it was before accounts.
  const account = accountFor(config, options.account);
  const apart = apartOf(config, account)?.id;
  return withJob('snapshot', { ...context, config, account: account.id, provider: options.provider }, async (deps) => {
    const { logger, db } = deps;
    const client = await deps.provider();
    const clock = options.clock ?? (() => new Date());
    // The open orders are checked around the balance readings, so few orders straddle them.
    const mode = config.SNAPSHOT_OPEN_CHECK;
    const checkOpenOrders =
      mode === 'off'
        ? undefined
        : openOrderChecker(
            {
              db,
              fetcher: client,
              policy: policyFromConfig(config, await loadActiveBankCodes(db.knex)),
              clock,
              logger,
              concurrency: config.RECON_CONCURRENCY,
              batchSize: config.RECON_BATCH_SIZE,
              webhooks: { expect: config.WEBHOOK_EXPECTED, marginMs: config.WEBHOOK_MISSING_MARGIN_MIN * 60_000 },
              onChecked: deps.metrics && ((direction, verdict, count) => deps.metrics!.orderChecked(direction, verdict, count, account.id)),
              accountId: account.id,
            },
            { lookbackDays: config.RECON_LOOKBACK_DAYS, mode, ...(apart !== undefined ? { account: apart } : {}) },
          );
    const result = await takeSnapshots(
      { db, client, policy: snapshotPolicyFromConfig(config), clock, logger, checkOpenOrders, account: apart },
      account.currencies,
    );
    // Drift and rate flags are findings to alert on, not a failure of the run.
    await raiseAndDeliver(
      { db, config, logger, now: options.clock ?? (() => new Date()), job: 'snapshot', account: account.id },
      alertsFor(result),
      clearedBy(result),
    );
    const ok = result.status === 'completed' || result.status === 'skipped';
    return { exitCode: ok ? EXIT.OK : EXIT.INCOMPLETE, result };
  });
}

/** BALANCE_DRIFT per currency (while its case is open), rate flags, and a run that could not complete. */
/** What a snapshot run clears: its own earlier failures when it completed, and rate flags of currencies whose rate is normal again. */
function clearedBy(result: SnapshotResult): ClearedCause[] {
  const cleared: ClearedCause[] = result.status === 'completed' ? jobCompleted('snapshot') : [];
  for (const c of result.currencies) {
    if (c.rate && c.rate.flags.length === 0) {
      cleared.push({ kind: 'rate_flags', fingerprintParts: [c.currency], why: `the ${c.currency} USDT rate is normal again` });
    }
  }
  return cleared;
}

function alertsFor(result: SnapshotResult): AlertInput[] {
  const alerts: AlertInput[] = result.drift
    .filter((d) => d.caseState === null || d.caseState === 'open')
    .map((d) =>
      alertForDrift(
        {
          currency: d.currency,
          drift: d.drift,
          tolerance: d.tolerance,
          expectedClosing: d.finding.local ?? undefined,
          closing: d.finding.provider ?? undefined,
        },
        result.runId,
        d.caseId ?? undefined,
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
