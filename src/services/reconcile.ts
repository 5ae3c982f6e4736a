// The reconcile job: select, check against the provider, raise alerts, map the outcome to an exit status.
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import { accountFor, apartOf } from '../config/accounts.ts';
import type { ProviderClientOptions } from '../provider/client.ts';
import { loadActiveBankCodes } from '../db/bank-codes.ts';
import { policyFromConfig } from '../reconcile/policy-from-config.ts';
import { reconcile, type ReconcileOutcome } from '../reconcile/reconcile.ts';
import { buildSelection, type SelectionRequest } from '../reconcile/selection.ts';
import { createProgress } from '../cli-ui/progress.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { raiseAndDeliver } from '../runtime/alerting.ts';
import { alertsForReconcileRun, alertForFailedRun, alertForStalledRun } from '../notify/alert-builders.ts';
import type { AlertInput } from '../notify/raise-alert.ts';
import { openCasesOfRun } from '../db/cases.ts';
import { jobCompleted } from '../notify/resolve-alerts.ts';
import type { MismatchCode } from '../domain/verdicts.ts';
import type { Db } from '../db/connect.ts';
import { loadConfig } from '../config/config.ts';
import { verdictKey } from '../recon/run-counts.ts';
import { UsageError } from '../domain/errors.ts';
import { DEFAULT_LOCK_WAIT_MS } from './reconcile-lock-wait.ts';

export interface ReconcileJobOptions extends SelectionRequest {
  dryRun?: boolean;
  failOnMismatch?: boolean;
  progress?: boolean;
  provider?: Partial<ProviderClientOptions>;
  /** Stops the run like SIGTERM does (checkpoint, 'interrupted'): the scheduler's shutdown. */
  stopSignal?: AbortSignal;
  /** An explicit selection's wait for a running sweep's lock (default DEFAULT_LOCK_WAIT_MS); the due sweep never waits. */
  waitMs?: number;
  /** The clock (tests fix it); default the system clock. */
  now?: () => Date;
}

export interface ReconcileJobResult {
  exitCode: number;
  outcome: ReconcileOutcome;
}

export async function reconcileJob(options: ReconcileJobOptions, context: JobContextOptions = {}): Promise<ReconcileJobResult> {
  const config = context.config ?? loadConfig();
  const now = options.now ?? (() => new Date());
  // The run's account: its orders only, checked with its own client (base URL, MerchantID, secret).
  // With one account the selection names none, so the run is exactly what it was before accounts.
  const account = accountFor(config, options.account);
  // Validated before the database is opened: a bad --date, --from/--to or --ref does nothing at all.
  const selection = usage(() =>
    buildSelection(
      { ...options, account: apartOf(config, account)?.id },
      {
        now: now(),
        zone: config.REPORT_TIMEZONE,
        lookbackDays: config.RECON_LOOKBACK_DAYS,
        finalRecheckDays: config.RECON_FINAL_RECHECK_DAYS,
      },
    ),
  );
  return withJob(
    'reconcile',
    { ...context, config, account: account.id, provider: options.provider, signal: options.stopSignal, stoppable: true },
    async (deps) => {
      const { db, logger } = deps;
      const client = await deps.provider();
      const progress = options.progress === false ? null : createProgress(logger);
      try {
        const policy = policyFromConfig(config, await loadActiveBankCodes(db.knex));
        const outcome = await reconcile(
          {
            db,
            accountId: account.id,
            fetcher: client,
            policy,
            clock: now,
            logger,
            concurrency: config.RECON_CONCURRENCY,
            batchSize: config.RECON_BATCH_SIZE,
            stopSignal: deps.signal,
            webhooks: { expect: config.WEBHOOK_EXPECTED, marginMs: config.WEBHOOK_MISSING_MARGIN_MIN * 60_000 },
            onProgress: progress ? (p) => progress.update(p.checked, p.selected, p.mismatches) : undefined,
            onChecked: deps.metrics && ((direction, verdict, count) => deps.metrics!.orderChecked(direction, verdict, count, account.id)),
            stallAfterMs: config.RUN_STALL_AFTER_SECONDS * 1000,
          },
          { selection, dryRun: options.dryRun ?? false, waitMs: options.waitMs ?? DEFAULT_LOCK_WAIT_MS },
        );
        progress?.stop();
        if (!options.dryRun) {
          const completed = outcome.runs.length > 0 && outcome.runs.every((r) => r.status === 'completed');
          await raiseAndDeliver(
            { db, config, logger, now, job: 'reconcile', account: account.id },
            await alertsFor(db, outcome),
            completed ? jobCompleted('reconcile') : [],
          );
        }
        return { exitCode: exitCodeOf(outcome, options.failOnMismatch ?? false), outcome };
      } finally {
        progress?.stop();
      }
    },
  );
}

function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/**
 * Mismatch and stale alerts per run, naming the cases behind them, and one for a run that could not
 * complete. Only cases still open count: once a person acknowledged (or resolved) one, it is not repeated.
 */
async function alertsFor(db: Db, outcome: ReconcileOutcome): Promise<AlertInput[]> {
  const alerts: AlertInput[] = [];
  if (outcome.stall) alerts.push(alertForStalledRun('reconcile', outcome.stall));
  for (const run of outcome.runs) {
    const items = (await openCasesOfRun(db.knex, run.runId)).map((i) => ({ ...i, codes: i.codes as MismatchCode[] }));
    alerts.push(...alertsForReconcileRun({ runId: run.runId, items }));
    if (run.status === 'credentials' || run.status === 'provider_unavailable' || run.status === 'failed') {
      alerts.push(alertForFailedRun('reconcile', run.status, run.error ?? run.status, run.runId));
    }
  }
  return alerts;
}

function exitCodeOf(outcome: ReconcileOutcome, failOnMismatch: boolean): number {
  if (outcome.status === 'skipped' || outcome.status === 'interrupted') return EXIT.OK;
  // An explicit rerun that could not get the lock did not do what was asked: never a silent 0.
  if (outcome.status === 'busy') return EXIT.INCOMPLETE;
  // Nor a sweep held off by a holder past RUN_STALL_AFTER_SECONDS: nothing will be checked until it is dealt with.
  if (outcome.status === 'stalled') return EXIT.INCOMPLETE;
  if (outcome.status !== 'completed') return EXIT.INCOMPLETE;
  const mismatches = outcome.runs.reduce((n, r) => n + (r.counts[verdictKey('mismatch')] ?? 0), 0);
  return failOnMismatch && mismatches > 0 ? EXIT.MISMATCHES : EXIT.OK;
}
