import { Decimal } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import { readAmount } from './amounts.ts';

/** What a rate reading can be flagged with (docs/reference/mismatch-codes.md lists them beside the mismatch codes). */
export const RATE_FLAGS = ['RATE_STALE', 'RATE_JUMP'] as const;
export type RateFlag = (typeof RATE_FLAGS)[number];

export interface RateReading {
  deposit: Amount;
  withdraw: Amount;
  takenAt: Date;
}

export interface PreviousRate extends RateReading {
  /** When the rate last changed; a feed that stops moving is as suspect as one that jumps. */
  unchangedSince: Date;
}

export interface RatePolicy {
  /** A rate unchanged for longer than this (strictly) is flagged stale. */
  staleAfterMs: number;
  /** A move of more than this percentage (strictly) since the previous reading is a jump; "5" = 5 %. */
  jumpPercent: Amount;
}

export interface RateCheck {
  flags: RateFlag[];
  /** Store with the new snapshot; it is the next call's `previous.unchangedSince`. */
  unchangedSince: Date;
  notes: string[];
}

/** Flags one USDT rate reading against the previous one. Pure: the reading's takenAt is "now". */
export function flagRate(previous: PreviousRate | null, current: RateReading, policy: RatePolicy): RateCheck {
  if (previous === null) return { flags: [], unchangedSince: current.takenAt, notes: [] };

  const sides = (['deposit', 'withdraw'] as const).map((side) => ({
    side,
    before: readRate(previous[side], side),
    after: readRate(current[side], side),
  }));
  const unchanged = sides.every(({ before, after }) => before.equals(after));

  if (unchanged) {
    const age = current.takenAt.getTime() - previous.unchangedSince.getTime();
    const stale = age > policy.staleAfterMs;
    return {
      flags: stale ? ['RATE_STALE'] : [],
      unchangedSince: previous.unchangedSince,
      notes: stale ? [`rate unchanged since ${previous.unchangedSince.toISOString()}`] : [],
    };
  }

  const limit = readRate(policy.jumpPercent, 'jumpPercent');
  const notes: string[] = [];
  for (const { side, before, after } of sides) {
    if (before.equals(after)) continue;
    // From zero any move is infinitely large: a rate of 0 was already wrong, so report it as a jump.
    const pct = before.isZero() ? null : after.minus(before).dividedBy(before).times(100);
    if (pct === null || pct.abs().greaterThan(limit)) {
      const moved = pct === null ? 'moved from 0' : `moved ${pct.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2)}%`;
      notes.push(`${side} ${moved} (${before.toFixed()} → ${after.toFixed()})`);
    }
  }
  return { flags: notes.length > 0 ? ['RATE_JUMP'] : [], unchangedSince: current.takenAt, notes };
}

function readRate(value: Amount, what: string): Decimal {
  const d = readAmount(value);
  if (d === null) throw new RangeError(`${what}: expected decimal text (got ${JSON.stringify(value)})`);
  return d;
}
