/** Times (ms) of the last second's events, oldest first; old ones are dropped as time moves on. */
class LastSecond {
  private times: number[] = [];
  private head = 0;

  /** How many events lie in (nowMs - 1000, nowMs]. */
  count(nowMs: number): number {
    while (this.head < this.times.length && nowMs - this.times[this.head] >= 1000) this.head++;
    if (this.head > 4096) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  add(nowMs: number): void {
    this.times.push(nowMs);
  }

  oldest(): number | undefined {
    return this.times[this.head];
  }
}

interface MerchantWindow {
  throttled: number;
  arrived: LastSecond;
  accepted: LastSecond;
  second: number;
  inSecond: number;
}

/**
 * The provider's own rate limit, per merchant: at most `limitPerSec` requests accepted in any
 * sliding one-second window (the strictest reading of "R requests per second": a client that
 * passes it passes any fixed-window counter too); above it the answer is 429 with Retry-After.
 * It also measures what arrived, limit or not, so a benchmark can show that no one-second window
 * ever held more than R requests.
 */
export class RateWindow {
  /** Requests per second per merchant; null: no limit (the default). */
  limitPerSec: number | null = null;
  /** A merchant's own limit, where it differs from limitPerSec (each MerchantID of a provider has its own rate). */
  private readonly merchantLimits = new Map<string, number | null>();
  throttled = 0;
  /** The most requests that arrived (accepted or not) in any one-second window, and in any calendar second. */
  busiestWindow = 0;
  busiestSecond = 0;
  private readonly merchants = new Map<string, MerchantWindow>();

  /** Records an arrival at `nowMs`; false when the merchant is over its limit (answer 429). */
  admit(merchantId: string, nowMs: number): boolean {
    let m = this.merchants.get(merchantId);
    if (!m) {
      m = { throttled: 0, arrived: new LastSecond(), accepted: new LastSecond(), second: -1, inSecond: 0 };
      this.merchants.set(merchantId, m);
    }
    m.arrived.add(nowMs);
    this.busiestWindow = Math.max(this.busiestWindow, m.arrived.count(nowMs));
    const second = Math.floor(nowMs / 1000);
    m.inSecond = second === m.second ? m.inSecond + 1 : 1;
    m.second = second;
    this.busiestSecond = Math.max(this.busiestSecond, m.inSecond);
    const limit = this.limitOf(merchantId);
    if (limit === null) return true;
    if (m.accepted.count(nowMs) >= limit) {
      this.throttled++;
      m.throttled++;
      return false;
    }
    m.accepted.add(nowMs);
    return true;
  }

  /** Seconds until the oldest accepted request leaves the window, for Retry-After (at least 1). */
  retryAfterSec(merchantId: string, nowMs: number): number {
    const oldest = this.merchants.get(merchantId)?.accepted.oldest() ?? nowMs;
    return Math.max(1, Math.ceil((oldest + 1000 - nowMs) / 1000));
  }

  /** The limit a merchant's requests meet: its own, else the common one. */
  limitOf(merchantId: string): number | null {
    return this.merchantLimits.has(merchantId) ? this.merchantLimits.get(merchantId)! : this.limitPerSec;
  }

  /** Sets one merchant's own limit (null: none, whatever the common one) and starts its measurement afresh. */
  setFor(merchantId: string, limitPerSec: number | null): void {
    this.merchantLimits.set(merchantId, limitPerSec);
    this.merchants.delete(merchantId);
  }

  /** Each of the merchants served: its limit and how many of its requests were refused (429) since the last set. */
  perMerchant(merchantIds: readonly string[]): Record<string, { limitPerSec: number | null; throttled: number }> {
    const out: Record<string, { limitPerSec: number | null; throttled: number }> = {};
    for (const id of merchantIds) out[id] = { limitPerSec: this.limitOf(id), throttled: this.merchants.get(id)?.throttled ?? 0 };
    return out;
  }

  /** Back to the limits the sandbox started with: the common one and each merchant's own. */
  reset(common: number | null, own: ReadonlyMap<string, number | null>): void {
    this.merchantLimits.clear();
    for (const [id, limit] of own) this.merchantLimits.set(id, limit);
    this.set(common);
  }

  /** Sets the common limit (merchants' own limits stay) and starts the measurement afresh. */
  set(limitPerSec: number | null): void {
    this.limitPerSec = limitPerSec;
    this.merchants.clear();
    this.throttled = 0;
    this.busiestWindow = 0;
    this.busiestSecond = 0;
  }
}
