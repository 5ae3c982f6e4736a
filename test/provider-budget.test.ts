/**
 * The shared provider budget: several limiters ("processes") reserving from one schedule never put more
 * than R requests in any one-second window, serve urgent work before the sweep and the sweep before the
 * re-check of final orders, and the Postgres schedule hands two connections disjoint slots. Fake clocks
 * throughout: nothing here waits in real time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import knexFactory, { type Knex } from 'knex';
import { RateLimiter, type BudgetPriority } from '../src/provider/rate-limit.ts';
import { decideGrant, MemorySlotStore } from '../src/provider/slot-store.ts';
import { PostgresSlotStore } from '../src/db/provider-budget.ts';
import { Throttle } from '../src/provider/throttle.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';

/** A virtual clock: sleep() registers a timer, run() fires them in time order once nothing else can happen. */
class FakeTime {
  t = 1_000_000;
  private timers: Array<{ at: number; seq: number; resolve: () => void }> = [];
  private seq = 0;
  now = (): number => this.t;
  sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, resolve });
    });
  async run(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.timers.length === 0) return;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
  }
}

/** The most starts in any window [t, t + 1000) over the sorted start times. */
function maxPerSecond(starts: number[]): number {
  const s = [...starts].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < s.length; i++) {
    while (s[i] - s[j] >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('decideGrant (the reservation rule)', () => {
  const req = { account: 'm', want: 5, intervalMs: 10, horizonMs: 100 };
  it.each([
    { name: 'idle schedule: starts now, grants what is wanted', next: 0, now: 1000, count: 5, first: 1000, nextFree: 1050 },
    { name: 'backlog below the horizon: starts at the next free slot', next: 1040, now: 1000, count: 5, first: 1040, nextFree: 1090 },
    { name: 'near the horizon: only what fits, at least one', next: 1095, now: 1000, count: 1, first: 1095, nextFree: 1105 },
    { name: 'backlog at the horizon: none, come back when it drained', next: 1100, now: 1000, count: 0, first: 1100, nextFree: 1100 },
  ])('$name', ({ next, now, count, first, nextFree }) => {
    const d = decideGrant(next, now, req);
    expect(d.grant.count).toBe(count);
    expect(d.grant.firstSlotMs).toBe(first);
    expect(d.nextFreeMs).toBe(nextFree);
    if (count === 0) expect(d.grant.retryInMs).toBe(1);
  });
});

describe('RateLimiter over one shared schedule, fake clock', () => {
  it('three pools at full demand: never more than R in any one-second window, and close to R overall', async () => {
    const time = new FakeTime();
    const store = new MemorySlotStore(time.now);
    const R = 50;
    const pools = [0, 1, 2].map(() => new RateLimiter({ ratePerSec: R, account: 'acct', store, now: time.now, sleep: time.sleep }));
    const starts: number[] = [];
    const began = time.t;
    const all = pools.flatMap((pool) => Array.from({ length: 200 }, () => pool.acquire('sweep').then(() => starts.push(time.t))));
    await time.run();
    await Promise.all(all);
    expect(starts).toHaveLength(600);
    expect(maxPerSecond(starts)).toBeLessThanOrEqual(R);
    // 600 requests at R / 1.025 take 12.3 s: the pools together used the whole rate the jitter allowance leaves.
    const seconds = (Math.max(...starts) - began) / 1000;
    expect(600 / seconds).toBeGreaterThan(0.97 * R);
  });

  it.each([
    { name: 'a 25 ms pause at the provider bunches what arrived meanwhile', jitterMs: undefined, expectedMax: 50, over: false },
    { name: 'the same pause without the allowance', jitterMs: 0, expectedMax: 52, over: true },
  ])('requests reaching the provider late: $name', async ({ jitterMs, expectedMax, over }) => {
    const time = new FakeTime();
    const store = new MemorySlotStore(time.now);
    const R = 50;
    const pools = [0, 1, 2].map(
      () => new RateLimiter({ ratePerSec: R, account: 'acct', store, now: time.now, sleep: time.sleep, jitterMs }),
    );
    const starts: number[] = [];
    const all = pools.flatMap((pool) => Array.from({ length: 200 }, () => pool.acquire('sweep').then(() => starts.push(time.t))));
    await time.run();
    await Promise.all(all);
    // The provider pauses for 25 ms (a GC): every request sent meanwhile is stamped when the pause ends.
    const sorted = [...starts].sort((a, b) => a - b);
    const pause = sorted[250];
    const arrivals = sorted.map((t) => (t >= pause && t < pause + 25 ? pause + 25 : t));
    expect(maxPerSecond(arrivals)).toBe(expectedMax);
    expect(maxPerSecond(arrivals) > R).toBe(over);
  });

  it('another account has its own schedule', async () => {
    const time = new FakeTime();
    const store = new MemorySlotStore(time.now);
    const a = new RateLimiter({ ratePerSec: 10, account: 'a', store, now: time.now, sleep: time.sleep });
    const b = new RateLimiter({ ratePerSec: 10, account: 'b', store, now: time.now, sleep: time.sleep });
    const starts: number[] = [];
    const all = [a, b].flatMap((l) => Array.from({ length: 10 }, () => l.acquire().then(() => starts.push(time.t))));
    await time.run();
    await Promise.all(all);
    expect(maxPerSecond(starts)).toBe(20);
  });

  it('within a pool: urgent before sweep before recheck, each in call order', async () => {
    const time = new FakeTime();
    const limiter = new RateLimiter({ ratePerSec: 10, account: 'acct', now: time.now, sleep: time.sleep, jitterMs: 0 });
    const order: string[] = [];
    const ask = (p: BudgetPriority, name: string) => limiter.acquire(p).then(() => order.push(name));
    // All six are queued before the first reservation answers: slots go by priority, then call order.
    const calls = [
      ask('sweep', 's0'),
      ask('recheck', 'r1'),
      ask('sweep', 's1'),
      ask('urgent', 'u1'),
      ask('recheck', 'r2'),
      ask('urgent', 'u2'),
    ];
    await time.run();
    await Promise.all(calls);
    expect(order).toEqual(['u1', 'u2', 's0', 's1', 'r1', 'r2']);
  });

  it('across pools: a flooding sweep leaves room for urgent work at once, and re-checks wait until it is done', async () => {
    const time = new FakeTime();
    const store = new MemorySlotStore(time.now);
    const R = 20;
    const sweeper = new RateLimiter({ ratePerSec: R, account: 'acct', store, now: time.now, sleep: time.sleep });
    const other = new RateLimiter({ ratePerSec: R, account: 'acct', store, now: time.now, sleep: time.sleep });
    const sweepDone: number[] = [];
    const sweep = Array.from({ length: 200 }, () => sweeper.acquire('sweep').then(() => sweepDone.push(time.t)));
    let urgentAt = 0;
    let recheckAt = 0;
    const asked = time.t + 2000;
    const late = time
      .sleep(2000)
      .then(() =>
        Promise.all([other.acquire('recheck').then(() => (recheckAt = time.t)), other.acquire('urgent').then(() => (urgentAt = time.t))]),
      );
    await time.run();
    await Promise.all([...sweep, late]);
    // Urgent: behind at most the sweep's 250 ms of booked slots (plus one lease), not behind its 10 s of queue.
    expect(urgentAt - asked).toBeLessThan(400);
    // The re-check waits for the sweep (it still gets its slot within the rate).
    expect(recheckAt).toBeGreaterThanOrEqual(Math.max(...sweepDone) - 100);
    expect(maxPerSecond([...sweepDone, urgentAt, recheckAt])).toBeLessThanOrEqual(R);
  });

  it('a stalled process gives up the slots it reached late instead of sending them on top of the next ones', async () => {
    const time = new FakeTime();
    const store = new MemorySlotStore(time.now);
    const R = 100;
    const steady = new RateLimiter({ ratePerSec: R, account: 'acct', store, now: time.now, sleep: time.sleep });
    // This pool stalls 200 ms every 2 s (a long GC pause, a starved CPU): its timers due meanwhile all fire at the end.
    const stalling = new RateLimiter({
      ratePerSec: R,
      account: 'acct',
      store,
      now: time.now,
      sleep: (ms) => {
        const phase = (time.t + ms) % 2000;
        return time.sleep(phase >= 500 && phase < 700 ? ms + (700 - phase) : ms);
      },
    });
    const starts: number[] = [];
    const all = [steady, stalling].flatMap((l) => Array.from({ length: 400 }, () => l.acquire().then(() => starts.push(time.t))));
    await time.run();
    await Promise.all(all);
    expect(starts).toHaveLength(800);
    expect(stalling.expired).toBeGreaterThan(0);
    expect(maxPerSecond(starts)).toBeLessThanOrEqual(R);
  });

  it('does not ask the schedule while its own last grant shows it would refuse; the sweep books three slots a round trip at low R', async () => {
    const time = new FakeTime();
    const memory = new MemorySlotStore(time.now);
    let reserves = 0;
    let refused = 0;
    const store = {
      reserve: async (req: Parameters<MemorySlotStore['reserve']>[0]) => {
        reserves++;
        const grant = await memory.reserve(req);
        if (grant.count === 0) refused++;
        return grant;
      },
    };
    // At R = 25 a 25 ms lease is one slot: the sweep books 250 ms ahead, then waits until three slots fit again.
    const limiter = new RateLimiter({ ratePerSec: 25, account: 'acct', store, now: time.now, sleep: time.sleep });
    const starts: number[] = [];
    const all = Array.from({ length: 100 }, () => limiter.acquire('sweep').then(() => starts.push(time.t)));
    await time.run();
    await Promise.all(all);
    expect(starts).toHaveLength(100);
    expect(maxPerSecond(starts)).toBeLessThanOrEqual(25);
    expect(refused).toBe(0);
    // Three slots per round trip once the first 250 ms are booked (one slot each until then).
    expect(reserves).toBeLessThanOrEqual(40);
  });

  it('a schedule that cannot be reached fails the waiting calls instead of hanging them', async () => {
    const limiter = new RateLimiter({
      ratePerSec: 5,
      account: 'acct',
      store: { reserve: () => Promise.reject(new Error('database unavailable')) },
    });
    await expect(limiter.acquire()).rejects.toThrow(/database unavailable/);
  });
});

describe('Throttle (adaptive concurrency on 429)', () => {
  it('halves the calls in flight on a 429 (once per second), holds attempts back for Retry-After, then grows back', async () => {
    const time = new FakeTime();
    const throttle = new Throttle(16, time.now, time.sleep);
    throttle.onThrottled(1000);
    throttle.onThrottled(1000); // the other calls in flight at that moment: no second halving
    expect(throttle.limit).toBe(8);
    let ready = 0;
    const waiting = throttle.ready().then(() => (ready = time.t));
    const since = time.t;
    await time.run();
    await waiting;
    expect(ready - since).toBe(1000);
    time.t += 1000;
    throttle.onThrottled(0);
    expect(throttle.limit).toBe(4);
    // Additive increase: one more after `limit` answers that were not 429.
    for (let i = 0; i < 4; i++) throttle.onAnswered();
    expect(throttle.limit).toBe(5);
    for (let i = 0; i < 200; i++) throttle.onAnswered();
    expect(throttle.limit).toBe(16);
    expect(throttle.lowestLimit).toBe(4);
  });

  it('never runs more calls at once than its limit', async () => {
    const throttle = new Throttle(3);
    let inFlight = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const calls = Array.from({ length: 10 }, () =>
      throttle.run(async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise<void>((r) => gates.push(r));
        inFlight--;
      }),
    );
    while (gates.length > 0 || inFlight > 0) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    await Promise.all(calls);
    expect(peak).toBe(3);
  });
});

describe.skipIf(requiresServer('the provider_budget row shared by connections'))('PostgresSlotStore', () => {
  let t: TestDatabase;
  let second: Knex;
  beforeAll(async () => {
    t = await createTestDatabase('provider_budget', { engine: 'postgres' });
    second = knexFactory({ client: 'pg', connection: t.url, pool: { min: 0, max: 4 }, searchPath: [t.db.schema] });
  });
  afterAll(async () => {
    await second?.destroy();
    await t?.drop();
  });

  it('two connections reserving at once get disjoint, evenly spaced slots; the horizon refuses beyond it', async () => {
    let now = 5_000;
    const a = new PostgresSlotStore(t.db.knex, () => now);
    const b = new PostgresSlotStore(second, () => now);
    const req = { account: 'acct', want: 4, intervalMs: 10, horizonMs: 200 };
    const grants = await Promise.all([a, b, a, b, a, b].map((s) => s.reserve({ ...req, horizonMs: 1000 })));
    const slots = grants.flatMap((g) => Array.from({ length: g.count }, (_, i) => g.firstSlotMs + i * 10)).sort((x, y) => x - y);
    expect(slots).toHaveLength(24);
    expect(slots[0]).toBe(5_000);
    slots.forEach((s, i) => expect(s).toBe(5_000 + i * 10));
    // 240 ms booked, above the 200 ms horizon: refused, told when to come back.
    const refused = await b.reserve(req);
    expect(refused).toMatchObject({ count: 0, retryInMs: 41 });
    // A higher priority (larger horizon) still gets slots, after the booked ones.
    expect(await a.reserve({ ...req, horizonMs: 1000 })).toMatchObject({ count: 4, firstSlotMs: 5_240 });
    now += 10_000;
    expect(await b.reserve(req)).toMatchObject({ count: 4, firstSlotMs: 15_000 });
  });

  it('on the server clock by default', async () => {
    const store = new PostgresSlotStore(t.db.knex);
    const g = await store.reserve({ account: 'clock', want: 1, intervalMs: 10, horizonMs: 100 });
    expect(g.count).toBe(1);
    expect(Math.abs(g.nowMs - Date.now())).toBeLessThan(5_000);
  });
});
