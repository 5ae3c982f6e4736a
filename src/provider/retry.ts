import { abortable, StopRequestedError } from './abortable.ts';
import { ProviderError } from './errors.ts';
import { defaultSleep } from './rate-limit.ts';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseMs: number;
  /** Upper bound of any one wait, Retry-After included, so a hostile header cannot stall a run. */
  maxDelayMs: number;
  /**
   * 429s are refusals before any processing: they are retried without counting against
   * maxRetries, for at most this long in total per call (default 10 minutes), so a throttled run
   * slows down instead of turning its orders into errors.
   */
  maxThrottledMs?: number;
}

const DEFAULT_MAX_THROTTLED_MS = 600_000;

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
 * The one HTTP retry backoff: the wait before retry number `retryIndex` (0-based). Full jitter
 * (AWS architecture blog): uniform in [0, min(cap, base * 2^retryIndex)), and never less than the
 * server's Retry-After when it gave one (a server that keeps refusing with "Retry-After: 0" still
 * sees the waits grow). Capped by maxDelayMs either way.
 */
export function httpRetryDelayMs(
  retryIndex: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const jitter = Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseMs * 2 ** retryIndex));
  return Math.min(policy.maxDelayMs, Math.max(jitter, retryAfterMs ?? 0));
}

export interface RetryHooks {
  /** Given the signal, so a real sleep can clear its timer on a stop. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Extra veto, e.g. never re-send an initiate that may have reached the provider. */
  canRetry?: (err: ProviderError) => boolean;
  onRetry?: (err: ProviderError, retryIndex: number, delayMs: number) => void;
  /** A stop request: no further attempt, and the wait before one ends at once (StopRequestedError). */
  signal?: AbortSignal;
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
  let retries = 0;
  let throttles = 0;
  let throttledMs = 0;
  for (let i = 0; ; i++) {
    if (i > 0 && hooks.signal?.aborted) throw new StopRequestedError();
    try {
      return await attempt(i);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      const throttled = err.detail.httpStatus === 429;
      const delay = httpRetryDelayMs(throttled ? throttles : retries, policy, err.detail.retryAfterMs, hooks.random);
      const within = throttled ? throttledMs + delay <= (policy.maxThrottledMs ?? DEFAULT_MAX_THROTTLED_MS) : retries < policy.maxRetries;
      const again = err.retryable && within && (hooks.canRetry?.(err) ?? true);
      if (!again) {
        err.detail.attempts = i + 1;
        throw err;
      }
      if (throttled) {
        throttles++;
        throttledMs += delay;
      } else retries++;
      hooks.onRetry?.(err, i, delay);
      await abortable(sleep(delay, hooks.signal), hooks.signal);
    }
  }
}
