/**
 * Where the provider account's request schedule lives. The account's rate limit is one schedule of
 * evenly spaced send slots (one every 1000 / R ms); every process that talks to the provider
 * reserves slots from it, a few at a time, so together they never send faster than R.
 *
 * Two stores keep it: the database row `provider_budget` (src/db/provider-budget.ts), shared by all
 * processes on one Postgres, and MemorySlotStore below, for a process on embedded PGlite (the only
 * process on that database) and for tests.
 */
export interface SlotRequest {
  /** The account the limit belongs to (the provider merchant id). */
  account: string;
  /** Slots wanted; fewer may be granted. */
  want: number;
  /** Spacing of the slots, ms (1000 / rate). */
  intervalMs: number;
  /**
   * Grant only while the schedule's backlog (how far its next free slot lies ahead of now) is below
   * this, ms. A larger horizon is a higher priority: it still gets slots when lower ones wait.
   */
  horizonMs: number;
  /** No slot earlier than now + this, ms: the time the answer takes to come back (default 0). */
  leadMs?: number;
}

export interface SlotGrant {
  /** Slots granted (0: the backlog is beyond the horizon; ask again in retryInMs). */
  count: number;
  /** The first granted slot on the store's clock, ms; the others follow at intervalMs. */
  firstSlotMs: number;
  /** The store's clock when it decided, ms: the caller converts slots to its own clock with it. */
  nowMs: number;
  /** With count 0: when the backlog will have fallen below the horizon. */
  retryInMs: number;
}

export interface SlotStore {
  reserve(req: SlotRequest): Promise<SlotGrant>;
  /**
   * The provider refused the account (429) and asked for `forMs` of quiet: no slot of the schedule
   * starts before now + forMs, for every process reserving from it (not only the one that was refused).
   */
  hold?(account: string, forMs: number): Promise<void>;
}

/**
 * The reservation rule both stores apply, as a pure function of the schedule's next free slot:
 * grant up to `want` slots starting at max(next free slot, now), as many as fit under the horizon
 * (at least one whenever the backlog is below it), and return the schedule's new next free slot.
 */
export function decideGrant(nextFreeMs: number, nowMs: number, req: SlotRequest): { grant: SlotGrant; nextFreeMs: number } {
  const start = Math.max(nextFreeMs, nowMs + (req.leadMs ?? 0));
  const backlog = start - nowMs;
  if (backlog >= req.horizonMs) {
    return { grant: { count: 0, firstSlotMs: start, nowMs, retryInMs: backlog - req.horizonMs + 1 }, nextFreeMs };
  }
  const fit = Math.max(1, Math.ceil((req.horizonMs - backlog) / req.intervalMs));
  const count = Math.max(1, Math.min(req.want, fit));
  return { grant: { count, firstSlotMs: start, nowMs, retryInMs: 0 }, nextFreeMs: start + count * req.intervalMs };
}

/** The schedule in this process's memory: enough when no other process shares the account. */
export class MemorySlotStore implements SlotStore {
  private readonly nextFree = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  reserve(req: SlotRequest): Promise<SlotGrant> {
    const decided = decideGrant(this.nextFree.get(req.account) ?? Number.NEGATIVE_INFINITY, this.now(), req);
    this.nextFree.set(req.account, decided.nextFreeMs);
    return Promise.resolve(decided.grant);
  }

  hold(account: string, forMs: number): Promise<void> {
    this.nextFree.set(account, Math.max(this.nextFree.get(account) ?? Number.NEGATIVE_INFINITY, this.now() + forMs));
    return Promise.resolve();
  }
}
