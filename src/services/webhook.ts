// The webhook receiver and the sweep of pending confirmations, with their exit statuses.
import { accountFor, configuredAccounts } from '../config/accounts.ts';
import { untilAborted } from '../runtime/until-aborted.ts';
import { withJob, type JobContextOptions, type JobDeps } from '../runtime/with-job.ts';
import type { ProviderClientOptions } from '../provider/client.ts';
import { loadSigningScheme } from '../provider/signing.ts';
import { createStatusMapper } from '../domain/status.ts';
import { confirmPendingWebhooks, type ConfirmCounts, type WebhookFetcher } from '../webhook/confirm.ts';
import { createWebhookHandler } from '../webhook/handler.ts';
import { schemeWarnings } from '../webhook/verify.ts';
import { createConfirmQueue } from '../webhook/queue.ts';
import { startWebhookServer, type WebhookServer } from '../webhook/server.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { policyFromConfig } from '../reconcile/policy-from-config.ts';
import { PayreconMetrics } from '../metrics/metrics.ts';
import { serveOps } from '../metrics/serve-ops.ts';
import type { OpsServer } from '../metrics/ops-server.ts';
import { messageOf } from '../domain/errors.ts';

/** Events left pending (crash, provider outage) are swept this often while serving. */
const SWEEP_INTERVAL_MS = 60_000;

export interface ServeOptions {
  port?: number;
  host?: string;
  provider?: Partial<ProviderClientOptions>;
  /** Called once listening (the CLI prints the address; tests learn the port). */
  onListening?: (server: WebhookServer) => void;
  /** Stops the server (tests); the CLI stops on SIGINT/SIGTERM. */
  stop?: AbortSignal;
  /** Called once the health and metrics port listens (WEBHOOK_METRICS_PORT set). */
  onOpsListening?: (server: OpsServer) => void;
}

export async function serveWebhooksJob(options: ServeOptions = {}, context: JobContextOptions = {}): Promise<number> {
  const metrics = context.metrics ?? new PayreconMetrics();
  const opts = { ...context, metrics, provider: options.provider, signal: options.stop, stoppable: true };
  return withJob('webhook', opts, async (deps) => {
    const { config, logger, db } = deps;
    const { client, clientFor, accounts } = await confirmClients(deps);
    const confirmDeps = {
      db,
      client,
      ...(clientFor ? { clientFor } : {}),
      logger,
      statusMapper: createStatusMapper(config.PROVIDER_STATUS_MAP),
      policy: policyFromConfig(config),
      concurrency: config.WEBHOOK_CONFIRM_CONCURRENCY,
    };
    const queue = createConfirmQueue(confirmDeps);
    const scheme = await loadSigningScheme(config.PROVIDER_SIGNATURE);
    for (const warning of schemeWarnings(scheme)) logger.warn(warning);
    const handler = createWebhookHandler({
      db,
      scheme,
      // The one account's secret (PROVIDER_SECRET without ACCOUNTS_FILE); with several, each account's.
      secret: configuredAccounts(config)[0].secret,
      ...(accounts ? { accounts } : {}),
      now: Date.now,
      logger,
      windowSec: config.WEBHOOK_TIMESTAMP_WINDOW_SEC,
      maxBodyBytes: config.WEBHOOK_MAX_BODY_BYTES,
      confirm: queue.enqueue,
      onOutcome: (outcome) => metrics.webhookNotification(outcome),
    });
    const server = await startWebhookServer(handler, { port: options.port ?? config.WEBHOOK_PORT, host: options.host });
    const ops = await serveOps({
      db,
      metrics,
      logger,
      host: config.METRICS_HOST,
      port: config.WEBHOOK_METRICS_PORT,
      onListening: options.onOpsListening,
    }).catch(async (err: unknown) => {
      await server.close();
      throw err;
    });
    const sweep = () =>
      confirmPendingWebhooks(confirmDeps).then(
        (counts) => logger.info({ counts }, 'pending webhook confirmations swept'),
        (err: unknown) => logger.error({ err: messageOf(err) }, 'sweep of pending webhook confirmations failed'),
      );
    try {
      logger.info({ url: server.url }, 'webhook receiver listening');
      options.onListening?.(server);
      await sweep();
      const timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
      try {
        await untilAborted(deps.signal);
      } finally {
        clearInterval(timer);
      }
      return EXIT.OK;
    } finally {
      await server.close();
      await ops?.close();
      await queue.idle();
    }
  });
}

/**
 * The clients confirming notifications. One account: its client, as before. Several: each notification is
 * confirmed with the client of the account whose secret signed it (webhook_events.account_id), and the
 * receiver knows every account's secret.
 */
async function confirmClients(deps: JobDeps): Promise<{
  client: WebhookFetcher;
  clientFor?: (accountId: string) => Promise<WebhookFetcher>;
  accounts?: Array<{ id: string; secret: string }>;
}> {
  const accounts = configuredAccounts(deps.config);
  if (accounts.length === 1) return { client: await deps.provider() };
  const clientFor = (id: string) => deps.providerFor(accountFor(deps.config, id));
  return { client: await clientFor(accounts[0].id), clientFor, accounts: accounts.map((a) => ({ id: a.id, secret: a.secret })) };
}

export async function confirmPendingJob(
  options: { provider?: Partial<ProviderClientOptions> } = {},
  context: JobContextOptions = {},
): Promise<{ exitCode: number; counts: ConfirmCounts }> {
  return withJob('webhook-confirm', { ...context, provider: options.provider }, async (deps) => {
    const { config, logger, db } = deps;
    const { client, clientFor } = await confirmClients(deps);
    const counts = await confirmPendingWebhooks({
      db,
      client,
      ...(clientFor ? { clientFor } : {}),
      logger,
      statusMapper: createStatusMapper(config.PROVIDER_STATUS_MAP),
      policy: policyFromConfig(config),
      concurrency: config.WEBHOOK_CONFIRM_CONCURRENCY,
    });
    // Anything still retryable means the provider could not be asked: the run did not complete.
    return { exitCode: counts.retry > 0 ? EXIT.INCOMPLETE : EXIT.OK, counts };
  });
}
