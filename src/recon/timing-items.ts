import { Decimal } from '../money/decimal.ts';
import type { Amount, Direction } from '../domain/types.ts';

/**
 * Timing items of a settlement roll-forward. payrecon cannot see when an order became final at the
 * provider, only that it lies in its finality interval (after the last check that saw it open, at or
 * before the first check that saw it final). An order whose interval overlaps a snapshot's balance
 * reading may be on either side of it: a timing item. Choices made for finance:
 * - Each timing item is in the window or not; its default side is where most of its interval lies.
 * - Each window takes the assignment of its timing items that leaves the smallest residual (ties:
 *   fewest items moved from their defaults); within tolerance, the window is explained.
 * - Windows are judged on their own: a timing item of the snapshot between two windows may be
 *   assigned in either, so one real drift is reported once and never "reversed" in the next window.
 * - Past MAX_SEARCHED items every assignment is not tried (2^n): only the defaults are, and the note says so.
 */
export interface TimingItem {
  /** An order's direction, or 'movement' for a recorded movement (orderId its id, merchantRef its reference). */
  direction: TimingSource;
  orderId: string;
  merchantRef: string;
  /** Signed change of the balance total if the item is in the window: payments paid − fee, payouts −(amount + fee), movements ±amount. */
  effect: Amount;
  /** The finality interval: open at or after `from`, final by `to`. */
  from: Date;
  to: Date;
  /** Which of the window's snapshots its interval overlaps. */
  straddles: 'opening' | 'closing' | 'both';
  /** The default side: the larger part of the interval lies inside the window. */
  likelyIn: boolean;
}

export type TimingSource = Direction | 'movement';

export interface AssignedTimingItem extends TimingItem {
  assignedIn: boolean;
}

/** A balance reading: from the request to the answer. */
export interface Reading {
  from: Date;
  to: Date;
}

export const MAX_SEARCHED = 16;

const mid = (r: Reading) => (r.from.getTime() + r.to.getTime()) / 2;

/**
 * Where an order with finality interval (from, to] stands in the window between two readings:
 * certainly in (seen open after the opening reading, seen final before the closing one), certainly
 * out, or a timing item.
 */
export function classifyFinality(
  interval: { from: Date; to: Date },
  opening: Reading,
  closing: Reading,
): 'in' | 'out' | Pick<TimingItem, 'straddles' | 'likelyIn'> {
  const lo = interval.from.getTime();
  const hi = interval.to.getTime();
  if (hi <= opening.from.getTime() || lo >= closing.to.getTime()) return 'out';
  const afterOpening = lo >= opening.to.getTime();
  const beforeClosing = hi <= closing.from.getTime();
  if (afterOpening && beforeClosing) return 'in';
  const straddles = !afterOpening && !beforeClosing ? 'both' : afterOpening ? 'closing' : 'opening';
  const inside = Math.max(0, Math.min(hi, mid(closing)) - Math.max(lo, mid(opening)));
  return { straddles, likelyIn: hi > lo ? inside * 2 > hi - lo : inside > 0 };
}

/**
 * The assignment of timing items that leaves the smallest residual |drift − their movement| (ties:
 * the one closest to the defaults), and whether that residual is within tolerance. The smallest
 * residual is what no assignment explains: a real drift is reported at that size, not inflated by a
 * timing item put on the wrong side. Past MAX_SEARCHED items only the defaults are tried.
 */
export function assignTimingItems(
  items: readonly TimingItem[],
  drift: Decimal,
  tolerance: Decimal,
): { items: AssignedTimingItem[]; explained: boolean; searched: boolean } {
  const effects = items.map((i) => new Decimal(i.effect));
  const nominal = items.map((i) => i.likelyIn);
  const residual = (mask: readonly boolean[]) =>
    drift.minus(effects.reduce((acc, e, k) => (mask[k] ? acc.plus(e) : acc), new Decimal(0))).abs();
  const assigned = (mask: readonly boolean[]) => items.map((i, k) => ({ ...i, assignedIn: mask[k] }));
  let best = nominal;
  let bestResidual = residual(nominal);
  const searched = items.length <= MAX_SEARCHED;
  if (searched && bestResidual.greaterThan(tolerance)) {
    let bestMoved = 0;
    for (let bits = 0; bits < 1 << items.length; bits++) {
      const mask = items.map((_, k) => (bits & (1 << k)) !== 0);
      const moved = mask.filter((m, k) => m !== nominal[k]).length;
      const r = residual(mask);
      if (r.lessThan(bestResidual) || (r.equals(bestResidual) && moved < bestMoved)) {
        best = mask;
        bestResidual = r;
        bestMoved = moved;
      }
    }
  }
  return { items: assigned(best), explained: !bestResidual.greaterThan(tolerance), searched };
}

export const defaultAssignment = (items: readonly TimingItem[]): AssignedTimingItem[] =>
  items.map((i) => ({ ...i, assignedIn: i.likelyIn }));

export const movementOf = (items: readonly AssignedTimingItem[]): Decimal =>
  items.reduce((acc, i) => (i.assignedIn ? acc.plus(i.effect) : acc), new Decimal(0));
