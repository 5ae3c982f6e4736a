import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { secretValues } from '../config/redact.ts';
import type { Db } from '../db/connect.ts';
import { createMailer, type Mailer } from '../notify/mailer.ts';
import { raiseAlert, type AlertInput } from '../notify/raise-alert.ts';
import { alertChannelsFromConfig, deliverPendingAlerts } from '../notify/deliver-alerts.ts';
import { resolveClearedAlerts, type ClearedCause } from '../notify/resolve-alerts.ts';
import { markPendingUndeliverable } from '../db/alerts-undelivered.ts';

const NO_CHANNEL = 'no alert channel configured (set ALERT_WEBHOOK_URL or ALERT_EMAIL_TO)';

export interface AlertingContext {
  db: Db;
  config: Config;
  logger: Logger;
  now: () => Date;
  /** Tests and the demo inject one; otherwise built from SMTP_URL when ALERT_EMAIL_TO is set. */
  mailer?: Mailer;
}

/**
 * Records the findings as alerts (deduplicated by fingerprint), resolves the alerts whose cause has
 * cleared (their cases all resolved, or a cause in `cleared`), and delivers whatever is pending,
 * including earlier failures and the "resolved" messages. Never throws: an alert that cannot go out
 * must not fail the job that found it.
 */
export async function raiseAndDeliver(
  ctx: AlertingContext,
  inputs: readonly AlertInput[],
  cleared: readonly ClearedCause[] = [],
): Promise<void> {
  const { db, config, logger } = ctx;
  const secrets = secretValues(config);
  try {
    for (const input of inputs) {
      const { suppressed } = await raiseAlert(db, input, { now: ctx.now(), repeatAfterMs: config.ALERT_REPEAT_AFTER_MS, secrets });
      logger.info({ kind: input.kind, suppressed }, suppressed ? 'alert unchanged since last raised; not repeated' : 'alert raised');
    }
    // Before delivery (or the lack of a channel): a cleared cause's "resolved" message goes out with the rest.
    const resolved = await resolveClearedAlerts(db, ctx.now(), cleared);
    if (resolved.length) logger.info({ alerts: resolved }, 'alerts resolved: their cause cleared');
    if (!config.ALERT_WEBHOOK_URL && !config.ALERT_EMAIL_TO?.length) {
      // Not pending forever: recorded as undeliverable, and summarised once a channel is configured.
      const n = await markPendingUndeliverable(db.knex, NO_CHANNEL);
      if (n) logger.warn({ undeliverable: n }, `${NO_CHANNEL}: alerts recorded as undeliverable`);
      return;
    }
    const ownMailer = !ctx.mailer && config.ALERT_EMAIL_TO?.length && config.SMTP_URL ? createMailer(config) : undefined;
    try {
      const result = await deliverPendingAlerts(db, alertChannelsFromConfig(config, ctx.mailer ?? ownMailer), ctx.now());
      if (result.failed.length)
        logger.warn({ failed: result.failed.length }, 'some alerts could not be delivered; retried on the next run');
    } finally {
      ownMailer?.close();
    }
  } catch (err) {
    logger.error({ err: (err as Error).message }, 'alerting failed; the job result stands');
  }
}
