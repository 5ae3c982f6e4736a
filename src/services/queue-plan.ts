// The scheduler's side of the queue (SCHEDULE_MODE=queue): each occurrence planned once, as jobs for `payrecon worker`.
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/connect.ts';
import { loadActiveBankCodes } from '../db/bank-codes.ts';
import { selectDueIds } from '../db/orders.ts';
import { completeRunIfDone, createQueuedRun, planOnce, queueSchemaFor, type PlannedBatch, type QueueJob } from '../db/queue.ts';
import type { Direction } from '../domain/types.ts';
import { filterFor } from '../reconcile/order-pages.ts';
import { policyFromConfig } from '../reconcile/policy-from-config.ts';
import { buildSelection } from '../reconcile/selection.ts';
import type { DueFilter } from '../db/orders.ts';
import { accountFor, configuredAccounts } from '../config/accounts.ts';

/** The queue's task names: one per kind of job a worker runs. */
export const TASKS = {
  reconcileBatch: 'reconcile_batch',
  snapshot: 'snapshot',
  bankCodes: 'bank_codes',
  daily: 'daily',
  prune: 'prune',
} as const;
export type TaskName = (typeof TASKS)[keyof typeof TASKS];

/** A job that keeps failing is retried with graphile-worker's exponential backoff, then left failed (visible in /metrics). */
const MAX_ATTEMPTS = 10;
const DIRECTIONS: readonly Direction[] = ['payment', 'payout'];

export interface PlanContext {
  config: Config;
  db: Db;
  logger: Logger;
  /** The account whose work this is; unset: the only configured account (several: the caller names each). */
  account?: string;
}

/** graphile-worker's priority is a smallint. */
const MAX_PRIORITY = 32_767;

/** The named queue of an account's reconcile batches. */
const reconcileQueueOf = (account: string): string => `reconcile:${account}`;

export type PlanResult = { planned: true; runId: string | null; jobs: number } | { planned: false };

/**
 * A due sweep as a queued run: its due ids found once, cut into batches of RECON_BATCH_SIZE, each a job
 * keyed `reconcile:<account>:<run>:<batch>`. The occurrence (account, scheduledFor) is planned once, by
 * whichever scheduler gets there first.
 */
export async function enqueueReconcileSweep(ctx: PlanContext, scheduledFor: Date, now: Date = new Date()): Promise<PlanResult> {
  const { config, db } = ctx;
  const account = ctx.account ?? accountFor(config, undefined).id;
  const several = configuredAccounts(config).length > 1;
  const selection = buildSelection(
    {},
    { now, zone: config.REPORT_TIMEZONE, lookbackDays: config.RECON_LOOKBACK_DAYS, finalRecheckDays: config.RECON_FINAL_RECHECK_DAYS },
  );
  const policy = policyFromConfig(config, await loadActiveBankCodes(db.knex));
  const filter: DueFilter = { ...(filterFor(selection, policy) as DueFilter), accountId: account };
  let result: PlanResult = { planned: false };
  const planned = await planOnce(
    db.knex,
    queueSchemaFor(config.DATABASE_SCHEMA),
    { account, job: 'reconcile', dueKey: scheduledFor.toISOString(), now },
    async (trx) => {
      const batches: PlannedBatch[] = [];
      for (const direction of DIRECTIONS) {
        const ids = await selectDueIds(trx, direction, filter, null);
        for (let chunk = ids.next(config.RECON_BATCH_SIZE); chunk.length > 0; chunk = ids.next(config.RECON_BATCH_SIZE)) {
          batches.push({ direction, ids: chunk });
        }
      }
      const run = await createQueuedRun(trx, account, { selection }, batches, now);
      // Nothing due: the run is complete as planned (no worker will ever touch it).
      if (batches.length === 0) await completeRunIfDone(trx, run.id, now);
      const jobs: QueueJob[] = batches.map((b, i) => ({
        task: TASKS.reconcileBatch,
        key: `reconcile:${account}:${run.id}:${i}`,
        payload: { account, runId: run.id, batch: i, direction: b.direction, ids: b.ids },
        // graphile runs by priority, then id: batch i of every account before batch i+1 of any, so the
        // accounts' sweeps interleave (each within its own budget) instead of running one after another.
        priority: Math.min(i, MAX_PRIORITY),
        // With several accounts, one batch of an account in flight at a time, across every worker: a second
        // one would only share the account's budget while holding a job slot another account's batch could
        // use (measured: docs/performance/scale-out.md). One account keeps today's behaviour.
        ...(several ? { queue: reconcileQueueOf(account) } : {}),
        maxAttempts: MAX_ATTEMPTS,
      }));
      result = { planned: true, runId: run.id, jobs: jobs.length };
      return { runId: run.id, jobs };
    },
  );
  if (!planned) ctx.logger.info({ account, scheduledFor }, 'reconcile sweep already planned by another scheduler; nothing enqueued');
  return planned ? result : { planned: false };
}

/**
 * The queue's name for work of the whole deployment (bank codes, prune) when several accounts are configured:
 * never an account id (ids are lower-case letters, digits and dashes). One account: its id, as before.
 */
export const deploymentWork = (config: Config): string => {
  const accounts = configuredAccounts(config);
  return accounts.length === 1 ? accounts[0].id : '*';
};

/**
 * Another scheduled job (snapshot, bank codes, daily, prune) as one job keyed `<kind>:<account>:<occurrence>`:
 * of ctx.account (one per account), or of the only account, or with several and none named of the whole
 * deployment (`*`).
 */
export async function enqueueOne(
  ctx: PlanContext,
  task: Exclude<TaskName, 'reconcile_batch'>,
  dueKey: string,
  payload: Record<string, unknown> = {},
  now: Date = new Date(),
): Promise<PlanResult> {
  const account = ctx.account ?? deploymentWork(ctx.config);
  const job: QueueJob = { task, key: `${task}:${account}:${dueKey}`, payload: { account, ...payload }, maxAttempts: MAX_ATTEMPTS };
  const planned = await planOnce(
    ctx.db.knex,
    queueSchemaFor(ctx.config.DATABASE_SCHEMA),
    { account, job: task, dueKey, now },
    async () => ({
      runId: null,
      jobs: [job],
    }),
  );
  if (!planned) ctx.logger.info({ account, task, dueKey }, 'already planned by another scheduler; nothing enqueued');
  return planned ? { planned: true, runId: null, jobs: 1 } : { planned: false };
}
