import type { Direction } from '../domain/types.ts';
import type { ReconPolicy, StaleLimits } from './types.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Exact amounts; payouts settle through banks, so they get longer to turn final and slower re-checks;
 * new orders are due at once. The deployed defaults (tuned for fewer provider requests per order)
 * are the configuration's: src/config/schema.ts, RECON_BACKOFF_* and RECON_FIRST_CHECK_*.
 */
export function defaultPolicy(): ReconPolicy {
  return {
    tolerances: {},
    staleAfterMs: {
      payment: { pending: 24 * HOUR, unknown: 24 * HOUR },
      payout: { pending: 72 * HOUR, unknown: 24 * HOUR },
    },
    backoffMs: {
      payment: [5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, 24 * HOUR],
      payout: [15 * MINUTE, HOUR, 6 * HOUR, 24 * HOUR],
    },
    firstCheckMs: { payment: 0, payout: 0 },
  };
}

/** What configuration may set; anything left out keeps its default. */
export interface PolicyOverrides {
  /** Keys are currency codes; the config parser yields a plain string record. */
  tolerances?: Readonly<Record<string, string>>;
  feeSchedule?: ReconPolicy['feeSchedule'];
  staleAfterMs?: Partial<Record<Direction, Partial<StaleLimits>>>;
  backoffMs?: Partial<Record<Direction, readonly number[]>>;
  firstCheckMs?: Partial<Record<Direction, number>>;
  knownBankCodes?: ReconPolicy['knownBankCodes'];
}

const DIRECTIONS: readonly Direction[] = ['payment', 'payout'];

/**
 * Defaults with overrides applied. The values arrive validated: configuration is checked once, at
 * the edge, by its schema (src/config/schema.ts: RECON_TOLERANCE, FEE_SCHEDULE_FILE, RECON_BACKOFF_*,
 * RECON_FIRST_CHECK_*), whose errors name the variable; the core does not check them a second time.
 */
export function resolvePolicy(overrides: PolicyOverrides = {}): ReconPolicy {
  const policy = defaultPolicy();
  Object.assign(policy.tolerances, overrides.tolerances);
  if (overrides.feeSchedule) policy.feeSchedule = overrides.feeSchedule;
  for (const direction of DIRECTIONS) {
    for (const category of ['pending', 'unknown'] as const) {
      const ms = overrides.staleAfterMs?.[direction]?.[category];
      if (ms !== undefined) policy.staleAfterMs[direction][category] = ms;
    }
    const backoff = overrides.backoffMs?.[direction];
    if (backoff !== undefined && backoff.length > 0) policy.backoffMs[direction] = [...backoff] as [number, ...number[]];
    policy.firstCheckMs[direction] = overrides.firstCheckMs?.[direction] ?? policy.firstCheckMs[direction];
  }
  if (overrides.knownBankCodes) policy.knownBankCodes = overrides.knownBankCodes;
  return policy;
}
