import { describe, expect, it } from 'vitest';
import { CredentialsError, ProviderUnavailableError } from '../src/provider/errors.ts';
import { httpRetryDelayMs, parseRetryAfter, withRetries, type RetryPolicy } from '../src/provider/retry.ts';

const policy: RetryPolicy = { maxRetries: 3, baseMs: 200, maxDelayMs: 5_000 };

describe('backoff with full jitter', () => {
  it('spans [0, base * 2^n) and is capped', () => {
    expect(httpRetryDelayMs(0, policy, undefined, () => 0)).toBe(0);
    expect(httpRetryDelayMs(0, policy, undefined, () => 0.999)).toBe(199);
    expect(httpRetryDelayMs(2, policy, undefined, () => 0.5)).toBe(400);
    expect(httpRetryDelayMs(10, policy, undefined, () => 0.999)).toBe(4995);
  });

  it('honours Retry-After seconds or date, capped', () => {
    const now = Date.parse('2024-05-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(['2'], now)).toBe(2000);
    expect(parseRetryAfter('Wed, 01 May 2024 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(httpRetryDelayMs(0, policy, 3000, () => 0)).toBe(3000);
    expect(httpRetryDelayMs(0, policy, 3_600_000, () => 0)).toBe(5000);
  });
});

describe('withRetries on a fake clock', () => {
  const unavailable = (extra = {}) => new ProviderUnavailableError('balance', 'HTTP 503', { httpStatus: 503, ...extra });

  it('retries retryable errors with growing jittered waits, then succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const out = await withRetries(
      async () => {
        calls++;
        if (calls < 3) throw unavailable();
        return 'ok';
      },
      policy,
      { sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
    );
    expect(out).toBe('ok');
    expect(waits).toEqual([100, 200]);
  });

  it('stops after maxRetries and records the attempts', async () => {
    const waits: number[] = [];
    const err = await withRetries(
      async () => {
        throw unavailable({ retryAfterMs: 1000 });
      },
      policy,
      { sleep: async (ms) => void waits.push(ms) },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.detail.attempts).toBe(4);
    expect(waits).toEqual([1000, 1000, 1000]);
  });

  it('never retries credentials errors or vetoed errors', async () => {
    let calls = 0;
    const creds = await withRetries(
      async () => {
        calls++;
        throw new CredentialsError('balance', 'HTTP 401');
      },
      policy,
      { sleep: async () => {} },
    ).catch((e) => e);
    expect(creds).toBeInstanceOf(CredentialsError);
    expect(calls).toBe(1);
    calls = 0;
    await withRetries(
      async () => {
        calls++;
        throw unavailable();
      },
      policy,
      { sleep: async () => {}, canRetry: () => false },
    ).catch(() => {});
    expect(calls).toBe(1);
  });
});
