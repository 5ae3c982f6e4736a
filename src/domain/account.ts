import type { Currency } from '../money/decimal.ts';

/** The id of the one account today's PROVIDER_* variables define when no ACCOUNTS_FILE is set. */
export const DEFAULT_ACCOUNT_ID = 'default';

/** A chart-of-accounts line a journal role (or role:CUR) posts to. */
export interface LedgerAccount {
  code: string;
  name: string;
}

/** Where an account's signing secret comes from: named so a listing can say where without showing it. */
export type SecretSource = { kind: 'env'; name: string } | { kind: 'file'; path: string };

/**
 * One provider account (one MerchantID): everything that differs between the accounts of one deployment.
 * The secret is held in memory only: never stored in the database, never logged, never listed.
 */
export interface Account {
  /** Lower-case letters, digits and dashes; names the account in commands, rows, files and labels. */
  id: string;
  displayName: string;
  /** The provider base URL (without /v1/api); undefined only for the implicit account with no PROVIDER_BASE_URL. */
  baseUrl: string | undefined;
  merchantId: string;
  secret: string;
  secretSource: SecretSource;
  currencies: readonly Currency[];
  /** Recipients of this account's report e-mails (empty: none). */
  reportRecipients: readonly string[];
  /** Journal role (or role:CUR) → ledger account; roles not listed keep the defaults. */
  journalAccounts: Readonly<Record<string, LedgerAccount>>;
  /** Requests per second this MerchantID may make, shared by every process; 0 = no cap. */
  rateLimitPerSec: number;
}
