/** Retry delay after the n-th failed attempt (1-based): 1, 2, 4, ... minutes, at most an hour. */
export function alertRetryDelayMs(attempts: number, baseMs = 60_000, maxMs = 3_600_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}
