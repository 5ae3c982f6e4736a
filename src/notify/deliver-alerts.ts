import type { Config } from '../config/config.ts';
import { secretValues } from '../config/redact.ts';
import type { Db } from '../db/connect.ts';
import { claimDueAlert, markAlertFailed, markAlertSent, recordAlertChannel, type AlertRecord } from '../db/alerts.ts';
import { alertMail, slackMessage } from './alert-message.ts';
import { summariseStale } from './stale-summary.ts';
import { alertRetryDelayMs } from './backoff.ts';
import { describeError } from './errors.ts';
import type { Mailer } from './mailer.ts';
import { postWebhook, webhookSecrets } from './webhook.ts';

export interface AlertChannels {
  webhook?: { url: string; timeoutMs?: number };
  email?: { mailer: Mailer; to: readonly string[] };
  /** Scrubbed from stored errors (the webhook URL and its path always are). */
  secrets?: readonly string[];
  /** Alerts undelivered this long (or raised with no channel) go out as one summary; default 24 h. */
  staleAfterMs?: number;
}

/** The channels the configuration asks for: ALERT_WEBHOOK_URL and/or ALERT_EMAIL_TO (needs a mailer). */
export function alertChannelsFromConfig(config: Config, mailer?: Mailer): AlertChannels {
  return {
    webhook: config.ALERT_WEBHOOK_URL ? { url: config.ALERT_WEBHOOK_URL, timeoutMs: config.NOTIFY_TIMEOUT_MS } : undefined,
    email: mailer && config.ALERT_EMAIL_TO?.length ? { mailer, to: config.ALERT_EMAIL_TO } : undefined,
    secrets: secretValues(config),
    staleAfterMs: config.ALERT_REPEAT_AFTER_MS,
  };
}

export interface DeliverAlertsResult {
  sent: string[];
  failed: { id: string; error: string; nextAttemptAt: Date }[];
  /** Set when nothing could be attempted: no channel configured, or the database failed. */
  error?: string;
  /** Set when folding stale news into a summary failed; delivery was still tried. */
  summariseError?: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_STALE_AFTER_MS = 24 * 3_600_000;
/** At most this many alerts per call, so one call cannot run unbounded. */
const MAX_PER_CALL = 200;

/**
 * Sends due pending alerts, one at a time: each is claimed (a lease on next_attempt_at), sent
 * to every configured channel that has not yet taken it, and marked sent only when all have.
 * A sender that crashes therefore re-sends at most the alert in flight, once its lease expires.
 * Failures leave the alert pending with attempts, last_error and a backed-off next_attempt_at.
 * Never throws: the job that raised the alerts gets a result to log.
 */
export async function deliverPendingAlerts(db: Db, channels: AlertChannels, now: Date): Promise<DeliverAlertsResult> {
  const result: DeliverAlertsResult = { sent: [], failed: [] };
  const active = (['webhook', 'email'] as const).filter((c) => channels[c]);
  if (active.length === 0) return { ...result, error: 'no alert channel configured (ALERT_WEBHOOK_URL, ALERT_EMAIL_TO)' };
  const secrets = [...(channels.secrets ?? []), ...(channels.webhook ? webhookSecrets(channels.webhook.url) : [])];
  const timeout = channels.webhook?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Long enough for every channel to time out once; after it, another sender may take the alert.
  const leaseMs = 2 * timeout * active.length + 60_000;

  try {
    // Before the loop: stale news goes out as one message, not a burst.
    await summariseStale(db, now, channels.staleAfterMs ?? DEFAULT_STALE_AFTER_MS);
  } catch (err) {
    // Its own step: a summary that cannot be made must not keep the current alerts from going out.
    result.summariseError = describeError(err, secrets);
  }
  try {
    for (let i = 0; i < MAX_PER_CALL; i++) {
      const alert = await claimDueAlert(db.knex, now, leaseMs);
      if (!alert) break;
      const error = await sendToChannels(db, alert, channels, active, timeout, secrets);
      if (error === null) {
        await markAlertSent(db.knex, alert.id, now);
        result.sent.push(alert.id);
      } else {
        const nextAttemptAt = new Date(now.getTime() + alertRetryDelayMs(alert.attempts));
        await markAlertFailed(db.knex, alert.id, error, nextAttemptAt);
        result.failed.push({ id: alert.id, error, nextAttemptAt });
      }
    }
  } catch (err) {
    result.error = describeError(err, secrets);
  }
  return result;
}

/** Null when every channel has the alert, else the channels' errors joined. */
async function sendToChannels(
  db: Db,
  alert: AlertRecord,
  channels: AlertChannels,
  active: readonly ('webhook' | 'email')[],
  timeout: number,
  secrets: string[],
): Promise<string | null> {
  const errors: string[] = [];
  for (const channel of active) {
    if (alert.delivered_channels.includes(channel)) continue;
    try {
      if (channel === 'webhook') await postWebhook(channels.webhook!.url, slackMessage(alert), timeout, secrets);
      else await channels.email!.mailer.send(alertMail(alert, channels.email!.mailer.from, channels.email!.to));
      await recordAlertChannel(db.knex, alert.id, channel);
    } catch (err) {
      errors.push(`${channel}: ${describeError(err, secrets)}`);
    }
  }
  return errors.length ? errors.join('; ') : null;
}
