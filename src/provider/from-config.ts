import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/errors.ts';
import { secretValues } from '../config/redact.ts';
import { ProviderClient, type ProviderClientOptions } from './client.ts';
import { loadSigningScheme } from './signing.ts';
import { createStatusMapper } from '../domain/status.ts';

/**
 * Builds the client from validated configuration (PROVIDER_*, RECON_CONCURRENCY); `overrides`
 * win, which is how the demo points it at a sandbox it just started.
 */
export async function createProviderClient(config: Config, overrides: Partial<ProviderClientOptions> = {}): Promise<ProviderClient> {
  const baseUrl = overrides.baseUrl ?? config.PROVIDER_BASE_URL;
  if (!baseUrl)
    throw new ConfigError(['PROVIDER_BASE_URL: not set; expected the provider base URL (without /v1/api), or start the sandbox']);
  const scheme = overrides.scheme ?? (await loadSigningScheme(config.PROVIDER_SIGNATURE));
  return new ProviderClient({
    merchantId: config.PROVIDER_MERCHANT_ID,
    secret: config.PROVIDER_SECRET,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    maxRetries: config.PROVIDER_MAX_RETRIES,
    throttledGiveUpMs: config.PROVIDER_MAX_THROTTLED_MS,
    rateLimitPerSec: config.PROVIDER_RATE_LIMIT,
    concurrency: config.RECON_CONCURRENCY,
    statusMapper: createStatusMapper(config.PROVIDER_STATUS_MAP),
    secretsToScrub: secretValues(config),
    ...overrides,
    baseUrl,
    scheme,
  });
}
