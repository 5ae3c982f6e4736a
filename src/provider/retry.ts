import { ProviderError } from './errors.ts';
import { defaultSleep } from './rate-limit.ts';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseMs: number;
  /** Upper bound of any one wait, Retry-After included, so a hostile header cannot stall a run. */
  maxDelayMs: number;
}

/** HTTP statuses worth another attempt: overload and gateway trouble. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Retry-After as delta-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * The one HTTP retry backoff: the wait before retry number `retryIndex` (0-based). The server's
 * Retry-After when it gave one, else full jitter (AWS architecture blog): uniform in
 * [0, min(cap, base * 2^retryIndex)). Either way capped by maxDelayMs.
 */
export function httpRetryDelayMs(
  retryIndex: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

export interface RetryHooks {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Extra veto, e.g. never re-send an initiate that may have reached the provider. */
  canRetry?: (err: ProviderError) => boolean;
  onRetry?: (err: ProviderError, retryIndex: number, delayMs: number) => void;
}

/**
 * Runs `attempt` until it succeeds, throws a non-retryable ProviderError, or the retries are spent.
 * The error that finally escapes carries the number of attempts made in `detail.attempts`.
 */
export async function withRetries<T>(
  attempt: (attemptIndex: number) => Promise<T>,
  policy: RetryPolicy,
  hooks: RetryHooks = {},
): Promise<T> {
  const sleep = hooks.sleep ?? defaultSleep;
  for (let i = 0; ; i++) {
    try {
      return await attempt(i);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      const again = err.retryable && i < policy.maxRetries && (hooks.canRetry?.(err) ?? true);
      if (!again) {
        err.detail.attempts = i + 1;
        throw err;
      }
      const delay = httpRetryDelayMs(i, policy, err.detail.retryAfterMs, hooks.random);
      hooks.onRetry?.(err, i, delay);
      await sleep(delay);
    }
  }
}
