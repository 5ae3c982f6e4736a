import type { Config } from './config.ts';
import { UsageError } from '../domain/errors.ts';
import { DEFAULT_ACCOUNT_ID, type Account, type LedgerAccount } from '../domain/account.ts';

/**
 * The provider accounts this deployment serves. With no ACCOUNTS_FILE, today's variables define the
 * one account "default", so a single-account setup needs nothing new. An account's key left out of the
 * file takes the matching variable (PROVIDER_BASE_URL, RECON_CURRENCIES, REPORT_EMAIL_TO,
 * JOURNAL_ACCOUNTS_FILE, PROVIDER_RATE_LIMIT). Derived at each call, so a config copied with an
 * override (a test's sandbox URL) is seen.
 */
export function configuredAccounts(config: Config): readonly Account[] {
  const file = config.ACCOUNTS_FILE;
  if (!file) return [implicitAccount(config)];
  return file.accounts.map((a) => ({
    id: a.id,
    displayName: a.displayName ?? a.id,
    baseUrl: a.baseUrl ?? config.PROVIDER_BASE_URL,
    merchantId: a.merchantId,
    secret: a.secret,
    secretSource: a.secretSource,
    currencies: a.currencies ?? config.RECON_CURRENCIES,
    reportRecipients: a.reportRecipients ?? config.REPORT_EMAIL_TO ?? [],
    journalAccounts: a.journalAccounts ?? config.JOURNAL_ACCOUNTS_FILE,
    rateLimitPerSec: a.rateLimitPerSec ?? config.PROVIDER_RATE_LIMIT,
  }));
}

function implicitAccount(config: Config): Account {
  return {
    id: DEFAULT_ACCOUNT_ID,
    displayName: DEFAULT_ACCOUNT_ID,
    baseUrl: config.PROVIDER_BASE_URL,
    merchantId: config.PROVIDER_MERCHANT_ID,
    secret: config.PROVIDER_SECRET,
    secretSource: { kind: 'env', name: 'PROVIDER_SECRET' },
    currencies: config.RECON_CURRENCIES,
    reportRecipients: config.REPORT_EMAIL_TO ?? [],
    journalAccounts: config.JOURNAL_ACCOUNTS_FILE,
    rateLimitPerSec: config.PROVIDER_RATE_LIMIT,
  };
}

/**
 * The account a command works on: the one named by `--account`, or the only one. With several
 * configured and none named, or a name not configured, a usage error lists the ids.
 */
export function accountFor(config: Config, id: string | undefined): Account {
  const accounts = configuredAccounts(config);
  const ids = accounts.map((a) => a.id).join(', ');
  if (id === undefined) {
    if (accounts.length === 1) return accounts[0];
    throw new UsageError(`--account: required, ${accounts.length} accounts are configured (${ids})`);
  }
  const found = accounts.find((a) => a.id === id);
  if (!found) throw new UsageError(`--account ${JSON.stringify(id)}: no such account; configured: ${ids}`);
  return found;
}

/**
 * The account a job keeps apart from the others: with several accounts configured, `account` (its rows only,
 * named in files and labels); with one, undefined, so nothing is filtered or named, as before accounts.
 */
export function apartOf(config: Config, account: Account): Account | undefined {
  return configuredAccounts(config).length > 1 ? account : undefined;
}

/** An account's report recipients: its own list, or REPORT_EMAIL_TO when it lists none. */
export function reportRecipientsOf(account: Account, config: Config): readonly string[] {
  return account.reportRecipients.length > 0 ? account.reportRecipients : (config.REPORT_EMAIL_TO ?? []);
}

/**
 * The chart of accounts an account's journal posts to: its mapping over JOURNAL_ACCOUNTS_FILE, role by role
 * (roles neither lists keep the defaults). The report writes with it and the ledger reads with it.
 */
export function journalChartOf(account: Account, config: Config): Readonly<Record<string, LedgerAccount>> {
  return { ...config.JOURNAL_ACCOUNTS_FILE, ...account.journalAccounts };
}

/** What `accounts list` shows of an account: everything but the secret, and where the secret comes from. */
export interface AccountListing extends Omit<Account, 'secret' | 'secretSource'> {
  secretFrom: string;
}

export function accountListing(config: Config): AccountListing[] {
  return configuredAccounts(config).map(({ secret: _secret, secretSource, ...rest }) => ({
    ...rest,
    secretFrom: secretSource.kind === 'env' ? `env ${secretSource.name}` : `file ${secretSource.path}`,
  }));
}
