import pLimit from 'p-limit';
import type { Db } from '../db/connect.ts';
import {
  applyConfirmedFinal,
  findOrderByTransactionRef,
  getWebhookEvent,
  listPendingEventIds,
  lockPendingEvent,
  noteEvent,
  settleEvent,
  type WebhookEventRow,
} from '../db/webhook-events.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import type { ProviderClient } from '../provider/client.ts';
import { OrderNotFoundError, ProviderError, ProviderResponseError } from '../provider/errors.ts';
import { createStatusMapper, type StatusMapper } from '../domain/status.ts';
import { syncWebhookCases } from '../cases/sync-webhook.ts';
import { contradictions, planOrderUpdate, type FetchedOrder } from './judge.ts';
import { requestRecheck } from '../db/orders.ts';
import { raiseAlert } from '../notify/raise-alert.ts';
import { alertForContradictedFinal, alertForUnknownOrder } from './alerts.ts';
import { defaultPolicy } from '../recon/policy.ts';
import type { ReconPolicy } from '../recon/types.ts';
import type { Notification } from './payload.ts';
import { messageOf } from '../domain/errors.ts';

/** The two fetches confirmation needs (the real ProviderClient, or a test double). */
export type WebhookFetcher = Pick<ProviderClient, 'fetchPayment' | 'fetchPayout'>;

export interface ConfirmDeps {
  db: Db;
  client: WebhookFetcher;
  /** Several accounts: the client of the account whose secret signed the notification (its MerchantID); `client` is then unused. */
  clientFor?: (accountId: string) => Promise<WebhookFetcher>;
  now?: () => Date;
  logger?: Logger;
  /** The same mapping the client uses (PROVIDER_STATUS_MAP), for the notification's own status string. */
  statusMapper?: StatusMapper;
  /** Reconcile's policy (tolerances), so both paths judge an order's identity alike; default: exact. */
  policy?: ReconPolicy;
}

/** retry: a transient failure (provider unavailable, credentials); the event stays pending. skipped: not pending any more. */
export type ConfirmOutcome = 'confirmed' | 'conflict' | 'error' | 'retry' | 'skipped';

const asNotification = (e: WebhookEventRow): Notification => ({
  direction: e.direction,
  transactionRef: e.transactionRef,
  merchantRef: e.merchantRef,
  currency: e.currency,
  method: e.method,
  amount: e.amount,
  paidAmount: e.paidAmount,
  fee: e.fee,
  status: e.status,
});

/**
 * Confirms one stored notification with the matching fetch, then, in one transaction holding the event's row
 * lock, either updates the local order and marks it confirmed, or marks a conflict and touches nothing.
 * Safe to run twice or from two processes: only the holder of a still-pending event settles it.
 */
export async function confirmWebhookEvent(deps: ConfirmDeps, id: string): Promise<ConfirmOutcome> {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger ?? silentLogger;
  const mapStatus = deps.statusMapper ?? createStatusMapper();
  const event = await getWebhookEvent(deps.db.knex, id);
  if (!event || event.confirmation !== 'pending') return 'skipped';
  const ref = event.transactionRef;
  if (ref === null) {
    await settleEvent(
      deps.db.knex,
      id,
      'error',
      `${event.direction} notification without transactionRef: stored, nothing to confirm it with`,
      now(),
    );
    return 'error';
  }

  let client: WebhookFetcher;
  try {
    client = deps.clientFor ? await deps.clientFor(event.accountId) : deps.client;
  } catch (err) {
    // An account no longer configured (stored before ACCOUNTS_FILE changed): this event cannot be confirmed; the others go on.
    await settleEvent(deps.db.knex, id, 'error', `no provider client for account ${event.accountId}: ${messageOf(err)}`, now());
    return 'error';
  }
  let fetched: FetchedOrder;
  try {
    // A notification waits for its confirming fetch: first in line when the provider budget is short.
    const urgent = { priority: 'urgent' as const };
    fetched = event.direction === 'payment' ? await client.fetchPayment(ref, urgent) : await client.fetchPayout(ref, urgent);
  } catch (err) {
    if (err instanceof OrderNotFoundError) {
      await settleEvent(deps.db.knex, id, 'conflict', `provider does not know transactionRef ${ref}: notification not confirmed`, now());
      return 'conflict';
    }
    if (err instanceof ProviderResponseError) {
      await settleEvent(deps.db.knex, id, 'error', `fetch answer unusable: ${err.message}`, now());
      return 'error';
    }
    if (!(err instanceof ProviderError)) throw err;
    // Unavailable or credentials: nothing is known yet; confirmPendingWebhooks tries again later.
    await noteEvent(deps.db.knex, id, `fetch failed, will retry: ${err.message}`);
    logger.warn({ eventId: id, transactionRef: ref, err: err.message }, 'webhook confirmation: fetch failed; left pending');
    return 'retry';
  }

  const diffs = contradictions(asNotification(event), fetched, mapStatus);
  const settled = await deps.db.knex.transaction(async (trx) => {
    if (!(await lockPendingEvent(trx, id))) return 'skipped';
    const at = now();
    if (diffs.length) {
      await settleEvent(trx, id, 'conflict', `fetch contradicts notification: ${diffs.join('; ')}`, at, fetched);
      logger.warn({ eventId: id, transactionRef: ref, diffs }, 'webhook conflict: fetch contradicts notification');
      return 'conflict' as const;
    }
    const local = await findOrderByTransactionRef(trx, event.direction, ref);
    const plan = planOrderUpdate(local, fetched, at, deps.policy ?? defaultPolicy());
    let note = plan.note;
    if (plan.apply && local && (await applyConfirmedFinal(trx, event.direction, local.id, plan.apply)) === 0) {
      note = 'confirmed; order became final meanwhile: not updated';
    }
    if (!plan.apply && plan.follow === 'recheck' && local) await requestRecheck(trx, event.direction, local.id, at);
    await syncWebhookCases(trx, event.direction, local, { ...fetched, transactionRef: ref }, event.receivedAt, at, event.accountId);
    // The fetch's values with it: a notification may carry only some fields, and reports show these.
    await settleEvent(trx, id, 'confirmed', note, at, fetched);
    logger.debug({ eventId: id, transactionRef: ref, note }, 'webhook confirmed');
    return { outcome: 'confirmed' as const, follow: plan.apply ? undefined : plan.follow, local, at };
  });
  if (settled === 'skipped' || settled === 'conflict') return settled;
  if (settled.follow) {
    // Stored now, delivered by the next job's alert delivery; an alert that cannot be stored must not undo the confirmation.
    const found =
      settled.follow === 'unknown_order' ? alertForUnknownOrder(event, fetched) : alertForContradictedFinal(event, fetched, settled.local!);
    // The account whose secret signed the notification ("default" with one account: the alert as before).
    const alert = { ...found, accountId: event.accountId };
    await raiseAlert(deps.db, alert, { now: settled.at }).catch((err: unknown) =>
      logger.error({ eventId: id, err: messageOf(err) }, 'webhook confirmation: alert not stored'),
    );
  }
  return 'confirmed';
}

export type ConfirmCounts = Record<ConfirmOutcome, number>;

/**
 * Confirms everything still pending (after a crash, a provider outage, or on a schedule), oldest first,
 * with at most `concurrency` fetches in flight.
 */
export async function confirmPendingWebhooks(deps: ConfirmDeps & { concurrency?: number; pageSize?: number }): Promise<ConfirmCounts> {
  const counts: ConfirmCounts = { confirmed: 0, conflict: 0, error: 0, retry: 0, skipped: 0 };
  const limit = pLimit(Math.max(1, deps.concurrency ?? 8));
  let after: string | null = null;
  for (;;) {
    const ids = await listPendingEventIds(deps.db.knex, deps.pageSize ?? 500, after);
    if (ids.length === 0) return counts;
    after = ids[ids.length - 1];
    const outcomes = await Promise.all(ids.map((id) => limit(() => confirmWebhookEvent(deps, id))));
    for (const o of outcomes) counts[o]++;
  }
}
