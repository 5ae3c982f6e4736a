import { Decimal, isCurrency } from '../money/decimal.ts';
import type { Direction } from '../domain/types.ts';
import { computeFee } from './fees.ts';
import { hash32, intBetween, rng, type Rng } from './prng.ts';
import { STATUS, type LifecycleOptions, type PlannedFinal } from './types.ts';

export type Outcome = 'success' | 'partial' | 'failed' | 'stuck';

/** The fate of one order, fixed at creation from (seed, direction, merchantRef). */
export interface Scenario {
  outcome: Outcome;
  delayMs: number;
  /** partial payments: percent of the amount paid, 50 to 99. */
  paidPct: number;
  /** INR payout UTR ("" when the scenario withholds it). */
  utr: string;
}

export function scenarioRng(seed: number, direction: Direction, merchantRef: string): Rng {
  return rng(hash32(`${seed}|${direction}|${merchantRef}`));
}

export function drawScenario(r: Rng, direction: Direction, lc: LifecycleOptions): Scenario {
  const roll = r();
  let outcome: Outcome;
  if (direction === 'payment') {
    outcome =
      roll < lc.paymentFailedShare
        ? 'failed'
        : roll < lc.paymentFailedShare + lc.paymentPartialShare
          ? 'partial'
          : roll < lc.paymentFailedShare + lc.paymentPartialShare + lc.paymentStuckShare
            ? 'stuck'
            : 'success';
  } else {
    outcome = roll < lc.payoutFailedShare ? 'failed' : roll < lc.payoutFailedShare + lc.payoutStuckShare ? 'stuck' : 'success';
  }
  const range = direction === 'payment' ? lc.paymentDelayMs : lc.payoutDelayMs;
  const delayMs = intBetween(r, range.min, Math.max(range.min, range.max));
  const paidPct = intBetween(r, 50, 99);
  // Twelve digits, like an IMPS reference number.
  const utr = `${intBetween(r, 100000, 999999)}${intBetween(r, 0, 999999).toString().padStart(6, '0')}`;
  const utrMissing = r() < lc.utrMissingShare;
  return { outcome, delayMs, paidPct, utr: utrMissing ? '' : utr };
}

/** The final state an order reaches under its scenario; undefined when it stays pending forever. */
export function planFinal(
  direction: Direction,
  currency: string,
  amount: string,
  payoutFee: string,
  s: Scenario,
): PlannedFinal | undefined {
  if (s.outcome === 'stuck' || !isCurrency(currency)) return undefined;
  if (direction === 'payout') {
    return s.outcome === 'failed'
      ? { status: STATUS.failed, paidAmount: '0', fee: payoutFee, utr: currency === 'INR' ? '' : undefined }
      : { status: STATUS.success, paidAmount: '0', fee: payoutFee, utr: currency === 'INR' ? s.utr : undefined };
  }
  if (s.outcome === 'failed') return { status: STATUS.failed, paidAmount: '0.00', fee: '0.00' };
  let paid = new Decimal(amount);
  if (s.outcome === 'partial') {
    const part = paid.mul(s.paidPct).div(100).toDecimalPlaces(2, Decimal.ROUND_DOWN);
    if (part.gt(0)) paid = part;
  }
  const paidText = s.outcome === 'partial' ? paid.toFixed(2) : amount;
  return { status: STATUS.success, paidAmount: paidText, fee: computeFee('payment', currency, paidText) };
}
