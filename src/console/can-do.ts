import type { Config } from '../config/config.ts';

/**
 * Why a rerun cannot work in this console, or null: said where the rerun is offered, instead of
 * queueing one that fails in the worker with an engineer's message.
 */
export function rerunRefusal(config: Config): string | null {
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
