import { abortable } from './abortable.ts';
import { defaultSleep } from './rate-limit.ts';

/**
 * The client's answer to a provider that says "too many requests" (HTTP 429): fewer calls in
 * flight, and none sent before the Retry-After it gave. The limit of calls in flight is halved on a
 * 429 (at most once per second, since every call in flight at the moment will see one) and grows
 * by one after each `limit` answers that were not 429 (AIMD, as TCP does), back to the maximum.
 * A call holds its place while it waits to be retried, so a throttled client slows down instead
 * of filling the gap with new calls.
 */
export class Throttle {
  private limitNow: number;
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];
  private sinceIncrease = 0;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  /** No attempt is sent before this (local clock, ms). */
  private notBefore = Number.NEGATIVE_INFINITY;
  /** Local clock (ms) of the first 429 since the provider last answered anything else; null when it is answering. */
  private refusingSince: number | null = null;
  /** 429 answers seen, and the lowest limit reached: for logs and the benchmark. */
  throttled = 0;
  lowestLimit: number;

  constructor(
    private readonly max: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = defaultSleep,
  ) {
    this.limitNow = Math.max(1, max);
    this.lowestLimit = this.limitNow;
  }

  get limit(): number {
    return this.limitNow;
  }

  /** How long the provider has answered nothing but 429 to this client (0 while it answers). */
  refusingForMs(): number {
    return this.refusingSince === null ? 0 : this.now() - this.refusingSince;
  }

  /** Runs one call (with its retries) within the current limit of calls in flight; `signal` ends a wait for a place. */
  async run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // A waiter is admitted by admit(), which counts it in flight on its behalf.
    if (this.inFlight < this.limitNow && this.queue.length === 0) this.inFlight++;
    else {
      let admitted: (() => void) | undefined;
      const place = new Promise<void>((resolve) => this.queue.push((admitted = resolve)));
      await abortable(place, signal, () => {
        const i = this.queue.indexOf(admitted!);
        if (i >= 0) this.queue.splice(i, 1);
        // Admitted in the same tick as the abort: give the place back.
        else this.release();
      });
    }
    try {
      return await call();
    } finally {
      this.release();
    }
  }

  private release(): void {
    this.inFlight--;
    this.admit();
  }

  /** Waits out a Retry-After the provider gave to any call of this client, unless `signal` stops it. */
  async ready(signal?: AbortSignal): Promise<void> {
    const wait = this.notBefore - this.now();
    if (wait > 0) await abortable(this.sleep(wait, signal), signal);
  }

  /** A 429: halve the limit (once per second) and hold every attempt back for `retryAfterMs`. */
  onThrottled(retryAfterMs: number): void {
    this.throttled++;
    const now = this.now();
    this.refusingSince ??= now;
    this.notBefore = Math.max(this.notBefore, now + retryAfterMs);
    if (now - this.lastDecrease < 1000) return;
    this.lastDecrease = now;
    this.limitNow = Math.max(1, Math.floor(this.limitNow / 2));
    this.lowestLimit = Math.min(this.lowestLimit, this.limitNow);
    this.sinceIncrease = 0;
  }

  /** An answer that was not a 429: after `limit` of them, one more call may be in flight. */
  onAnswered(): void {
    this.refusingSince = null;
    if (this.limitNow >= this.max) return;
    if (++this.sinceIncrease < this.limitNow) return;
    this.sinceIncrease = 0;
    this.limitNow++;
    this.admit();
  }

  private admit(): void {
    while (this.queue.length > 0 && this.inFlight < this.limitNow) {
      this.inFlight++;
      this.queue.shift()!();
    }
  }
}
