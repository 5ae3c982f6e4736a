import { isCurrency, isDecimalText, type Currency } from '../money/decimal.ts';
import type { Direction } from '../domain/types.ts';
import type { FeeRule, FeeRules, ReconPolicy, StaleLimits } from './types.ts';

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
 * Defaults with overrides applied, validated: a bad policy is a configuration mistake and must
 * stop the run at start (RangeError naming the field), not skew every comparison silently.
 */
export function resolvePolicy(overrides: PolicyOverrides = {}): ReconPolicy {
  const policy = defaultPolicy();

  for (const [currency, value] of Object.entries(overrides.tolerances ?? {})) {
    if (!isCurrency(currency)) throw new RangeError(`tolerances: unknown currency "${currency}"`);
    if (!isDecimalText(value) || value.startsWith('-')) {
      throw new RangeError(`tolerances.${currency}: expected a non-negative decimal such as "0.01" (got "${value}")`);
    }
    policy.tolerances[currency] = value;
  }

  if (overrides.feeSchedule) {
    for (const [currency, rules] of Object.entries(overrides.feeSchedule) as [Currency, Partial<Record<Direction, FeeRules>>][]) {
      if (!isCurrency(currency)) throw new RangeError(`feeSchedule: unknown currency "${currency}"`);
      for (const [direction, rule] of Object.entries(rules ?? {})) {
        if (!rule) continue;
        const byMethod: [string, FeeRule][] =
          typeof rule.percent === 'string' ? [['', rule as FeeRule]] : Object.entries(rule as Record<string, FeeRule>);
        for (const [method, r] of byMethod) {
          const where = `feeSchedule.${currency}.${direction}${method ? `.${method}` : ''}`;
          if (!isDecimalText(r.percent) || !isDecimalText(r.fixed))
            throw new RangeError(`${where}: percent and fixed must be decimal text`);
          for (const bound of [r.min, r.max]) {
            if (bound !== undefined && !isDecimalText(bound)) throw new RangeError(`${where}: min and max must be decimal text`);
          }
        }
      }
    }
    policy.feeSchedule = overrides.feeSchedule;
  }

  for (const direction of DIRECTIONS) {
    const stale = overrides.staleAfterMs?.[direction] ?? {};
    for (const category of ['pending', 'unknown'] as const) {
      const ms = stale[category];
      if (ms === undefined) continue;
      if (!Number.isSafeInteger(ms) || ms <= 0)
        throw new RangeError(`staleAfterMs.${direction}.${category}: expected a positive whole number of milliseconds`);
      policy.staleAfterMs[direction][category] = ms;
    }

    const backoff = overrides.backoffMs?.[direction];
    if (backoff !== undefined) {
      if (backoff.length === 0 || !backoff.every((ms) => Number.isSafeInteger(ms) && ms > 0)) {
        throw new RangeError(`backoffMs.${direction}: expected one or more positive whole numbers of milliseconds`);
      }
      policy.backoffMs[direction] = [...backoff] as [number, ...number[]];
    }

    const firstCheck = overrides.firstCheckMs?.[direction];
    if (firstCheck !== undefined) {
      if (!Number.isSafeInteger(firstCheck) || firstCheck < 0)
        throw new RangeError(`firstCheckMs.${direction}: expected a whole number of milliseconds, 0 or more`);
      policy.firstCheckMs[direction] = firstCheck;
    }
  }

  if (overrides.knownBankCodes) policy.knownBankCodes = overrides.knownBankCodes;
  return policy;
}
