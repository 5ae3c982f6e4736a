/**
 * Requests-per-second cap as evenly spaced slots (a token bucket holding one token): never more
 * than `ratePerSec` requests start in any one-second window, and waiters are served in call order.
 */
export class RateLimiter {
  private nextSlot = Number.NEGATIVE_INFINITY;
  private readonly intervalMs: number;

  constructor(
    ratePerSec: number,
    // Monotonic clock and sleep are injectable so tests need no real waiting.
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = defaultSleep,
  ) {
    if (!(ratePerSec > 0)) throw new Error(`rateLimitPerSec must be positive, got ${ratePerSec}`);
    this.intervalMs = 1000 / ratePerSec;
  }

  /** Resolves when the caller may send; slots are reserved synchronously, so order is preserved. */
  async acquire(): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.intervalMs;
    if (slot > now) await this.sleep(slot - now);
  }
}

export function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
