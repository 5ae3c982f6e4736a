import type { Config } from '../config/config.ts';
import type { Currency } from '../money/decimal.ts';
import type { RatePolicy } from '../recon/rates.ts';

/** What the snapshot job checks against, plain data so a run can log it. */
export interface SnapshotPolicy {
  rates: RatePolicy;
  /** Absolute roll-forward tolerance per currency; missing means exact. */
  tolerances: Partial<Record<Currency, string>>;
  /** How long a recorded movement may take to reach the balance, either side of its recorded moment. */
  movementLagMs: number;
}

/** MOVEMENT_LAG_MIN's default: a bank or chain transfer lands within minutes of the moment recorded. */
export const DEFAULT_MOVEMENT_LAG_MS = 10 * 60_000;

export function snapshotPolicyFromConfig(config: Config): SnapshotPolicy {
  return {
    rates: { staleAfterMs: config.RATE_STALE_AFTER_MIN * 60_000, jumpPercent: config.RATE_JUMP_PERCENT },
    tolerances: config.RECON_TOLERANCE,
    movementLagMs: config.MOVEMENT_LAG_MIN * 60_000,
  };
}

export const toleranceFor = (policy: SnapshotPolicy, currency: Currency): string => policy.tolerances[currency] ?? '0';
