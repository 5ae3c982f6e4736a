import type { Config } from '../config/config.ts';
import { configuredAccounts } from '../config/accounts.ts';

/**
 * Why a rerun cannot work in this console, or null: said where the rerun is offered, instead of
 * queueing one that fails in the worker with an engineer's message.
 */
export function rerunRefusal(config: Config): string | null {
  // A queued rerun records only its day, so its report could not be one account's; refused here
  // instead of reconciling and then failing at the report.
  if (configuredAccounts(config).length > 1) {
    return 'several accounts are configured and console reruns are not per account yet; run `payrecon reconcile --date D --account ID`, then `payrecon report --date D --account ID`.';
  }
  if (!config.PROVIDER_BASE_URL) {
    return 'no payments provider is configured for this console (PROVIDER_BASE_URL is not set), so a day cannot be reconciled again here.';
  }
  return null;
}

/** Why a report cannot be e-mailed from this console, or null. */
export function sendRefusal(config: Pick<Config, 'SMTP_URL' | 'REPORT_EMAIL_TO'>): string | null {
  if (!config.SMTP_URL) return 'e-mail is not configured (SMTP_URL is not set).';
  if (!config.REPORT_EMAIL_TO?.length) return 'no accounting address is configured (REPORT_EMAIL_TO is not set).';
  return null;
}
