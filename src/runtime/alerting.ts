import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { secretValues } from '../config/redact.ts';
import type { Db } from '../db/connect.ts';
import { createMailer, type Mailer } from '../notify/mailer.ts';
import { raiseAlert, type AlertInput } from '../notify/raise-alert.ts';
import { alertChannelsFromConfig, deliverPendingAlerts, type DeliverAlertsResult } from '../notify/deliver-alerts.ts';
import { resolveClearedAlerts, type ClearedCause } from '../notify/resolve-alerts.ts';
import { describeError } from '../notify/errors.ts';
import { markPendingUndeliverable } from '../db/alerts-undelivered.ts';
import { recordAlertingFailure, recordAlertingOk, type AlertingStep } from '../db/alerting-health.ts';

const NO_CHANNEL = 'no alert channel configured (set ALERT_WEBHOOK_URL or ALERT_EMAIL_TO)';

export interface AlertingContext {
  db: Db;
  config: Config;
  logger: Logger;
  now: () => Date;
  /** The job whose alerting this is, recorded with a failure (`payrecon status`, `doctor`). */
  job: string;
  /** Tests and the demo inject one; otherwise built from SMTP_URL when ALERT_EMAIL_TO is set. */
  mailer?: Mailer;
  /**
   * The account whose job this is: its alerts carry it. With several accounts configured (`apart`) the
   * account is part of each fingerprint, so one account's finding never suppresses, supersedes or
   * resolves another account's same finding; with one, fingerprints stay as they were.
   */
  account?: { id: string; apart: boolean };
}

export interface AlertingOutcome {
  /** The steps that failed this time; each is counted in alerting_health. */
  failed: AlertingStep[];
}

/**
 * Records the findings as alerts (deduplicated by fingerprint), resolves the alerts whose cause has
 * cleared (their cases all resolved, or a cause in `cleared`), and delivers whatever is pending,
 * including earlier failures and the "resolved" messages. Never throws: an alert that cannot go out
 * must not fail the job that found it. Each step runs whatever the one before did (a failure to resolve
 * must not stop delivery), and a failed step is recorded where an operator looks: `payrecon status`,
 * `payrecon doctor`, payrecon_alerting_failures_total.
 */
export async function raiseAndDeliver(
  ctx: AlertingContext,
  inputs: readonly AlertInput[],
  cleared: readonly ClearedCause[] = [],
): Promise<AlertingOutcome> {
  const { db, config, logger } = ctx;
  const secrets = secretValues(config);
  const outcome: AlertingOutcome = { failed: [] };
  const ofAccount = ctx.account;
  const fingerprinted = (parts: readonly string[]) => (ofAccount?.apart ? [`account:${ofAccount.id}`, ...parts] : parts);
  const failed = async (step: AlertingStep, error: string) => {
    outcome.failed.push(step);
    logger.error({ step, err: error }, `alerting step ${step} failed; the job result stands`);
    try {
      await recordAlertingFailure(db.knex, { step, job: ctx.job, error, at: ctx.now() });
    } catch (err) {
      logger.error({ step, err: describeError(err, secrets) }, 'alerting failure could not be recorded');
    }
  };
  const step = async (name: AlertingStep, fn: () => Promise<string | undefined | void>) => {
    let error: string | undefined;
    try {
      error = (await fn()) ?? undefined;
    } catch (err) {
      error = stepError(err, secrets);
    }
    if (error !== undefined) await failed(name, error);
    else await recordAlertingOk(db.knex, name, ctx.now()).catch(() => undefined);
  };

  await step('raise', async () => {
    const errors: string[] = [];
    // One finding that cannot be recorded does not keep the others from being.
    for (const finding of inputs) {
      const input = ofAccount
        ? { ...finding, accountId: ofAccount.id, fingerprintParts: fingerprinted(finding.fingerprintParts) }
        : finding;
      try {
        const { suppressed } = await raiseAlert(db, input, { now: ctx.now(), repeatAfterMs: config.ALERT_REPEAT_AFTER_MS, secrets });
        logger.info({ kind: input.kind, suppressed }, suppressed ? 'alert unchanged since last raised; not repeated' : 'alert raised');
      } catch (err) {
        errors.push(`${input.kind}: ${stepError(err, secrets)}`);
      }
    }
    return errors.length ? errors.join('; ') : undefined;
  });
  // Before delivery (or the lack of a channel): a cleared cause's "resolved" message goes out with the rest.
  await step('resolve', async () => {
    const causes = cleared.map((c) => ({ ...c, fingerprintParts: fingerprinted(c.fingerprintParts) }));
    const resolved = await resolveClearedAlerts(db, ctx.now(), causes);
    if (resolved.length) logger.info({ alerts: resolved }, 'alerts resolved: their cause cleared');
  });
  if (!config.ALERT_WEBHOOK_URL && !config.ALERT_EMAIL_TO?.length) {
    // Not pending forever: recorded as undeliverable, and summarised once a channel is configured.
    await step('no_channel', async () => {
      const n = await markPendingUndeliverable(db.knex, NO_CHANNEL);
      if (n) logger.warn({ undeliverable: n }, `${NO_CHANNEL}: alerts recorded as undeliverable`);
    });
    return outcome;
  }
  let result: DeliverAlertsResult | undefined;
  await step('deliver', async () => {
    const ownMailer = !ctx.mailer && config.ALERT_EMAIL_TO?.length && config.SMTP_URL ? createMailer(config) : undefined;
    try {
      result = await deliverPendingAlerts(db, alertChannelsFromConfig(config, ctx.mailer ?? ownMailer), ctx.now());
    } finally {
      ownMailer?.close();
    }
    if (result.error) return result.error;
    if (!result.failed.length) return undefined;
    logger.warn({ failed: result.failed.length }, 'some alerts could not be delivered; retried on the next run');
    return `${result.failed.length} alert(s) not delivered: ${result.failed[0].error}`;
  });
  // Summarising runs inside delivery (before its loop), as a step of its own: its failure is its own.
  if (result) await step('summarise', async () => result?.summariseError);
  return outcome;
}

/** The database's own words for a failed query: knex puts the whole statement before them. */
function stepError(err: unknown, secrets: readonly string[]): string {
  const text = describeError(err, secrets);
  const fromDatabase = typeof (err as { severity?: unknown } | null)?.severity === 'string';
  return (fromDatabase && text.includes(' - ') ? text.slice(text.lastIndexOf(' - ') + 3) : text).replace(/\s+/g, ' ');
}
