import { MemorySlotStore, type SlotGrant, type SlotStore } from './slot-store.ts';
import { onAbort } from './on-abort.ts';

/**
 * What a request is for, when the account's budget is short:
 * - urgent: webhook confirmations and explicit reruns (`reconcile --ref/--date`): someone waits;
 * - sweep: the due sweep and the other scheduled jobs;
 * - recheck: the low-rate re-check of final orders, which may wait for a quiet moment.
 */
export type BudgetPriority = 'urgent' | 'sweep' | 'recheck';
const PRIORITIES: readonly BudgetPriority[] = ['urgent', 'sweep', 'recheck'];

/**
 * How far ahead of now each priority may still reserve slots. The sweep keeps at most 250 ms of
 * slots booked, so an urgent request waits at most that long behind it however busy it is; a
 * final re-check gets slots only while less than 50 ms are booked, i.e. when nothing else waits.
 */
const HORIZON_MS: Readonly<Record<BudgetPriority, number>> = { urgent: 1000, sweep: 250, recheck: 50 };

/**
 * How late a request may reach the provider, relative to its slot, with every one-second window there
 * still holding at most R: the slots are spaced (1000 + JITTER_MS) / R ms apart, so the slots of any
 * 1000 + JITTER_MS ms hold at most R and a window at the provider never catches more, however they
 * shift within that allowance. The lateness is ours (up to LATE_MS, below) plus the network plus the
 * provider's own: the sandbox stamps a request when its event loop reads it, and measured 15-30 ms
 * pauses there (GC on this 2-core machine) bunched the requests that came meanwhile (bench/budget.ts,
 * 2026-11-25). At 20 ms (the former 2 % at R = 200) about one run in two saw a window of 201; 25 ms
 * schedules 0.976 R.
 */
const JITTER_MS = 25;

/** Slots reserved per round trip to the store, as time: fewer round trips, small bursts. */
const LEASE_MS = 25;

/**
 * The sweep's own waiters only (never a re-check riding along) may reserve up to this many slots at once: it
 * waits until that many fit under its horizon, so at R = 25 (one slot per 25 ms lease) one round trip
 * books three slots instead of one. The backlog it keeps booked stays above 250 ms minus two slots.
 */
const SWEEP_LEASE_SLOTS = 3;

/**
 * A slot whose timer fires later than this (the process stalled: GC, a busy CPU) is given up and the
 * caller reserves again: sent late, a run of such slots would land together, on top of the slots that
 * follow. Measured with bench/budget.ts (3 processes at R = 200): at 15 ms a process stalled for about
 * 17 ms sent four or five requests within 2 ms, a window of 201-202 and 1-4 answers of 429; at 5 ms,
 * none, for 40 slots given up in 20 s (0.974-0.976 R achieved).
 */
const LATE_MS = 5;

export interface RateLimiterOptions {
  ratePerSec: number;
  /** The provider account the limit belongs to (its merchant id). */
  account: string;
  /** The shared schedule; default: this process's memory. */
  store?: SlotStore;
  /** See JITTER_MS; 0 spaces the slots exactly 1000 / R apart. */
  jitterMs?: number;
  // Clock and sleep are injectable so tests never wait.
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The account's requests-per-second cap, shared through a SlotStore: each request waits for a slot
 * of one schedule that every process reserves from, so no one-second window holds more than R
 * requests from all of them together. Waiters are served by priority, then in call order.
 */
export class RateLimiter {
  private readonly intervalMs: number;
  private readonly leaseSize: number;
  private readonly store: SlotStore;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly queues: Record<BudgetPriority, Waiter[]> = { urgent: [], sweep: [], recheck: [] };
  private pumping = false;
  /** Slots given up because this process reached them too late (see LATE_MS). */
  expired = 0;
  /** Of those, slots already past when the store's answer came (a round trip slower than the lead). */
  expiredOnArrival = 0;
  /** Recent round trips to the store (moving average): slots are asked for no earlier than that from now. */
  private roundTripMs = 0;
  /**
   * The schedule's next free slot after this process's latest grant, on the local clock. Other processes and
   * holds only move it later, so while it lies a horizon or more ahead the store would refuse: the pump waits
   * instead of asking (at R = 25 one refused round trip per granted slot, half the statements of a sweep).
   */
  private nextFreeAtLeast = Number.NEGATIVE_INFINITY;
  /** Store clock minus local clock, from the reservation with the shortest round trip lately. */
  private offset: { ms: number; rttMs: number; at: number } | null = null;

  constructor(private readonly options: RateLimiterOptions) {
    if (!(options.ratePerSec > 0)) throw new Error(`rateLimitPerSec must be positive, got ${options.ratePerSec}`);
    this.intervalMs = (1000 + (options.jitterMs ?? JITTER_MS)) / options.ratePerSec;
    this.leaseSize = Math.max(1, Math.ceil(LEASE_MS / this.intervalMs));
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    this.store = options.store ?? new MemorySlotStore(this.now);
  }

  /**
   * The provider answered 429 asking for `forMs` of quiet: the account's shared schedule starts no slot
   * before then, so the account's other processes wait it out too instead of drawing 429s of their own.
   * Advisory: a store that cannot record it leaves each process to its own Retry-After, as before.
   */
  async hold(forMs: number): Promise<void> {
    if (!(forMs > 0)) return;
    await this.store.hold?.(this.options.account, forMs).catch(() => undefined);
  }

  /** Resolves when the caller may send. */
  acquire(priority: BudgetPriority = 'sweep'): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queues[priority].push({ resolve, reject });
      if (!this.pumping) void this.pump();
    });
  }

  private waiting(): number {
    return this.queues.urgent.length + this.queues.sweep.length + this.queues.recheck.length;
  }

  /** Reserves slots for whoever waits, best priority first, until nobody does. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      for (let best = this.bestWaiting(); best; best = this.bestWaiting()) {
        const want = this.wanted(best);
        const refusedForMs = this.nextFreeAtLeast - this.now() - (HORIZON_MS[best] - (want - 1) * this.intervalMs);
        if (refusedForMs >= 0) {
          await this.sleep(Math.min(100, refusedForMs + 1));
          continue;
        }
        const before = this.now();
        let grant: SlotGrant;
        try {
          grant = await this.store.reserve({
            account: this.options.account,
            want,
            intervalMs: this.intervalMs,
            horizonMs: HORIZON_MS[best],
            leadMs: Math.ceil(this.roundTripMs),
          });
        } catch (err) {
          // Without the shared schedule nothing may be sent: every waiter fails, as a provider call would.
          for (const p of PRIORITIES) for (const w of this.queues[p].splice(0)) w.reject(err);
          return;
        }
        if (grant.count === 0) {
          await this.sleep(Math.min(100, Math.max(1, grant.retryInMs)));
          continue;
        }
        const after = this.now();
        this.roundTripMs = 0.8 * this.roundTripMs + 0.2 * (after - before);
        const offset = this.offsetFrom(grant.nowMs, before, after);
        this.nextFreeAtLeast = grant.firstSlotMs + grant.count * this.intervalMs - offset;
        for (let i = 0; i < grant.count; i++) {
          const taken = this.takeBest();
          if (!taken) break;
          const at = grant.firstSlotMs + i * this.intervalMs - offset;
          const use = (onArrival: boolean) => {
            if (this.now() - at <= LATE_MS) return taken.waiter.resolve();
            this.expired++;
            if (onArrival) this.expiredOnArrival++;
            this.queues[taken.priority].unshift(taken.waiter);
            if (!this.pumping) void this.pump();
          };
          const wait = at - this.now();
          // A slot already past when the answer came (a round trip slower than the lead asked for) follows the same
          // rule: used within LATE_MS, else given up; the lead grows with the round trips, so this stays rare.
          if (wait <= 0) use(true);
          else void this.sleep(wait).then(() => use(false));
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Slots to ask for: a lease for whoever waits, or up to SWEEP_LEASE_SLOTS for the sweep's own waiters. */
  private wanted(best: BudgetPriority): number {
    const lease = Math.min(this.waiting(), this.leaseSize);
    return best === 'sweep' ? Math.max(lease, Math.min(this.queues.sweep.length, SWEEP_LEASE_SLOTS)) : lease;
  }

  private bestWaiting(): BudgetPriority | undefined {
    return PRIORITIES.find((p) => this.queues[p].length > 0);
  }

  private takeBest(): { waiter: Waiter; priority: BudgetPriority } | undefined {
    const priority = this.bestWaiting();
    return priority ? { waiter: this.queues[priority].shift()!, priority } : undefined;
  }

  /**
   * The store's clock is another machine's (the database server's): a slot is converted with the
   * offset seen by the reservation with the shortest round trip in the last 10 s, the least uncertain.
   */
  private offsetFrom(storeNow: number, before: number, after: number): number {
    const sample = { ms: storeNow - (before + after) / 2, rttMs: after - before, at: after };
    if (!this.offset || sample.rttMs <= this.offset.rttMs || after - this.offset.at > 10_000) this.offset = sample;
    return this.offset.ms;
  }
}

/** With a signal, an abort clears the timer: a stopped process is not kept alive by a pending Retry-After. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const forget = signal ? onAbort(signal, done) : () => undefined;
    function done() {
      clearTimeout(timer);
      forget();
      resolve();
    }
  });
}
