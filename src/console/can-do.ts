import type { Config } from '../config/config.ts';
import { configuredAccounts, reportRecipientsOf } from '../config/accounts.ts';

/**
 * Why a rerun cannot work in this console, or null: said where the rerun is offered, instead of
 * queueing one that fails in the worker with an engineer's message.
 */
export function rerunRefusal(config: Config): string | null {
  // With an ACCOUNTS_FILE each account may name its own baseUrl: the rerun needs the one of its account.
  const accounts = configuredAccounts(config);
  const unreachable = accounts.filter((a) => !a.baseUrl).map((a) => a.id);
  if (unreachable.length === 0) return null;
  if (accounts.length > 1)
    return `no payments provider is configured for account ${unreachable.join(', ')} (no baseUrl in ACCOUNTS_FILE, and PROVIDER_BASE_URL is not set), so a day cannot be reconciled again here.`;
  return 'no payments provider is configured for this console (PROVIDER_BASE_URL is not set), so a day cannot be reconciled again here.';
}

/**
 * Why a report cannot be e-mailed from this console, or null. `accountRecipients`: where the version's
 * account's reports go (several accounts: its own list, else REPORT_EMAIL_TO); undefined with one account.
 */
export function sendRefusal(config: Pick<Config, 'SMTP_URL' | 'REPORT_EMAIL_TO'>, accountRecipients?: readonly string[]): string | null {
  if (!config.SMTP_URL) return 'e-mail is not configured (SMTP_URL is not set).';
  if (accountRecipients)
    return accountRecipients.length
      ? null
      : 'no accounting address is configured for this account (no reportRecipients in ACCOUNTS_FILE, and REPORT_EMAIL_TO is not set).';
  if (!config.REPORT_EMAIL_TO?.length) return 'no accounting address is configured (REPORT_EMAIL_TO is not set).';
  return null;
}

/** Where an account's reports go when several accounts are configured (reportRecipientsOf); undefined with one. */
export function accountRecipientsOf(config: Config, accountId: string): readonly string[] | undefined {
  const accounts = configuredAccounts(config);
  if (accounts.length < 2) return undefined;
  const account = accounts.find((a) => a.id === accountId);
  // An account no longer configured: REPORT_EMAIL_TO, as for an account listing none (its send is refused anyway).
  return account ? reportRecipientsOf(account, config) : (config.REPORT_EMAIL_TO ?? []);
}
