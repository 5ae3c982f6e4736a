import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/errors.ts';
import { secretValues } from '../config/redact.ts';
import { accountFor } from '../config/accounts.ts';
import type { Account } from '../domain/account.ts';
import { ProviderClient, type ProviderClientOptions } from './client.ts';
import { loadSigningScheme } from './signing.ts';
import { createStatusMapper } from '../domain/status.ts';

/**
 * Builds the client of the one configured account (PROVIDER_*, RECON_CONCURRENCY, or ACCOUNTS_FILE's
 * only entry); `overrides` win, which is how the demo points it at a sandbox it just started.
 */
export async function createProviderClient(config: Config, overrides: Partial<ProviderClientOptions> = {}): Promise<ProviderClient> {
  return createAccountClient(config, accountFor(config, undefined), overrides);
}

/** The client of one account: its base URL, MerchantID, secret and rate limit; the rest is the deployment's. */
export async function createAccountClient(
  config: Config,
  account: Account,
  overrides: Partial<ProviderClientOptions> = {},
): Promise<ProviderClient> {
  const baseUrl = overrides.baseUrl ?? account.baseUrl;
  if (!baseUrl)
    throw new ConfigError(['PROVIDER_BASE_URL: not set; expected the provider base URL (without /v1/api), or start the sandbox']);
  const scheme = overrides.scheme ?? (await loadSigningScheme(config.PROVIDER_SIGNATURE));
  return new ProviderClient({
    merchantId: account.merchantId,
    secret: account.secret,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    maxRetries: config.PROVIDER_MAX_RETRIES,
    throttledGiveUpMs: config.PROVIDER_MAX_THROTTLED_MS,
    rateLimitPerSec: account.rateLimitPerSec,
    concurrency: config.RECON_CONCURRENCY,
    statusMapper: createStatusMapper(config.PROVIDER_STATUS_MAP),
    secretsToScrub: secretValues(config),
    ...overrides,
    baseUrl,
    scheme,
  });
}
