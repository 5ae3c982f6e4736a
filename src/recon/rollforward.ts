import { Decimal, normalizeDecimal, type Currency } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import { readAmount, show } from './amounts.ts';
import type { Finding } from './types.ts';
import {
  MAX_SEARCHED,
  assignTimingItems,
  defaultAssignment,
  movementOf,
  type AssignedTimingItem,
  type TimingItem,
} from './timing-items.ts';

/** The parts of a balance snapshot that hold the merchant's money (credit is a facility, not funds). */
export interface BalanceTotals {
  available: Amount;
  pending: Amount;
  held: Amount;
}

export interface PaymentFlow {
  paidAmount: Amount;
  fee: Amount;
}

export interface PayoutFlow {
  amount: Amount;
  fee: Amount;
}

/** Pre-aggregated sums, as `SELECT SUM(...)` returns them: null when no order matched. */
export interface PaymentSums {
  paidAmount: Amount | null;
  fee: Amount | null;
}

export interface PayoutSums {
  amount: Amount | null;
  fee: Amount | null;
}

export interface RollForwardInput {
  currency: Currency;
  opening: BalanceTotals | null;
  closing: BalanceTotals | null;
  /** Payments certainly final success between the two snapshots: one row each, or their sums. */
  paymentsFinal: readonly PaymentFlow[] | PaymentSums;
  /** Payouts certainly final success between the two snapshots: one row each, or their sums. */
  payoutsFinal: readonly PayoutFlow[] | PayoutSums;
  /** Approved movements (top-ups, withdrawals, ...) certainly between the two readings: signed effects (in +, out −). */
  movements?: readonly Amount[];
  /** Orders that may have become final, or movements that may have landed, on either side of a snapshot (see timing-items.ts). */
  timingItems?: readonly TimingItem[];
  /** Absolute, in the currency's units. */
  tolerance: Amount;
}

/** Amounts are canonical decimal text (exact, no rounding); the null ones need both snapshots. */
export interface RollForwardResult {
  currency: Currency;
  openingTotal: Amount | null;
  /** Orders certainly final within the window. */
  explainedMovement: Amount;
  /** Recorded, approved movements certainly within the window (in − out). */
  movementsMovement: Amount;
  /** Timing items, each with the side it was assigned to; the ones assigned in make timingMovement. */
  timingItems: AssignedTimingItem[];
  timingMovement: Amount;
  closingTotal: Amount | null;
  /** opening + explained + movements + timing movement. */
  expectedClosing: Amount | null;
  /** closing − expected: positive means more money than the orders explain. */
  drift: Amount | null;
  withinTolerance: boolean | null;
  finding: Finding | null;
  /** Why the check could not be made, e.g. a missing snapshot. */
  note: string | null;
}

/**
 * Settlement roll-forward between two balance snapshots. Bad numbers throw (RangeError): the
 * inputs come from payrecon's own tables, and a proof built on unreadable data must not pass.
 */
export function rollForward(input: RollForwardInput): RollForwardResult {
  const tolerance = mustRead(input.tolerance, 'tolerance');
  if (tolerance.isNegative()) throw new RangeError(`tolerance: expected a non-negative amount (got "${input.tolerance}")`);

  const byOrders = paymentsIn(input.paymentsFinal).minus(payoutsOut(input.payoutsFinal));
  const byMovements = (input.movements ?? []).reduce((acc, m, i) => acc.plus(mustRead(m, `movements[${i}]`)), new Decimal(0));
  const explained = byOrders.plus(byMovements);
  const openingTotal = input.opening && total(input.opening, 'opening');
  const closingTotal = input.closing && total(input.closing, 'closing');

  const items = input.timingItems ?? [];
  for (const [i, item] of items.entries()) mustRead(item.effect, `timingItems[${i}].effect`);
  const base = {
    currency: input.currency,
    openingTotal: openingTotal && normalizeDecimal(openingTotal),
    explainedMovement: normalizeDecimal(byOrders),
    movementsMovement: normalizeDecimal(byMovements),
    closingTotal: closingTotal && normalizeDecimal(closingTotal),
  };
  if (openingTotal === null || closingTotal === null) {
    const missing = [openingTotal === null && 'opening', closingTotal === null && 'closing'].filter(Boolean).join(' and ');
    const timingItems = defaultAssignment(items);
    return {
      ...base,
      timingItems,
      timingMovement: normalizeDecimal(movementOf(timingItems)),
      expectedClosing: null,
      drift: null,
      withinTolerance: null,
      finding: null,
      note: `no ${missing} balance snapshot; roll-forward not checked`,
    };
  }

  // Drift before timing items; an assignment of them that explains it within tolerance clears it.
  const unassigned = closingTotal.minus(openingTotal.plus(explained));
  const assignment = assignTimingItems(items, unassigned, tolerance);
  const timingItems = assignment.items;
  const timing = movementOf(timingItems);
  const expected = openingTotal.plus(explained).plus(timing);
  const drift = closingTotal.minus(expected);
  const withinTolerance = assignment.explained;
  const finding: Finding | null = withinTolerance
    ? null
    : {
        code: 'BALANCE_DRIFT',
        local: normalizeDecimal(expected),
        provider: normalizeDecimal(closingTotal),
        note: `${input.currency} balance ${show(closingTotal, input.currency)}, ${(input.movements ?? []).length ? 'orders and movements' : 'orders'} explain ${show(expected, input.currency)} (drift ${show(drift, input.currency)})${timingNote(items.length, assignment.searched)}`,
      };
  return {
    ...base,
    timingItems,
    timingMovement: normalizeDecimal(timing),
    expectedClosing: normalizeDecimal(expected),
    drift: normalizeDecimal(drift),
    withinTolerance,
    finding,
    note: null,
  };
}

function timingNote(n: number, searched: boolean): string {
  if (n === 0) return '';
  const tried = searched ? 'no assignment of them explains it' : `only their default sides were tried (more than ${MAX_SEARCHED})`;
  return `; ${n} timing item${n === 1 ? '' : 's'}, ${tried}`;
}

function mustRead(value: Amount | null, what: string): Decimal {
  const d = readAmount(value);
  if (d === null) throw new RangeError(`${what}: expected decimal text (got ${JSON.stringify(value)})`);
  return d;
}

/** SUM over no rows is NULL in SQL, which here means nothing moved. */
const sumOrZero = (value: Amount | null, what: string): Decimal => (value === null ? new Decimal(0) : mustRead(value, what));

function total(b: BalanceTotals, which: string): Decimal {
  return mustRead(b.available, `${which}.available`)
    .plus(mustRead(b.pending, `${which}.pending`))
    .plus(mustRead(b.held, `${which}.held`));
}

/** Money in: what payers paid less the provider's fee. */
function paymentsIn(flows: readonly PaymentFlow[] | PaymentSums): Decimal {
  const rows: readonly PaymentSums[] = isList(flows) ? flows : [flows];
  return rows.reduce(
    (acc, r, i) => acc.plus(sumOrZero(r.paidAmount, `paymentsFinal[${i}].paidAmount`)).minus(sumOrZero(r.fee, `paymentsFinal[${i}].fee`)),
    new Decimal(0),
  );
}

/** Money out: what was sent plus the provider's fee for sending it. */
function payoutsOut(flows: readonly PayoutFlow[] | PayoutSums): Decimal {
  const rows: readonly PayoutSums[] = isList(flows) ? flows : [flows];
  return rows.reduce(
    (acc, r, i) => acc.plus(sumOrZero(r.amount, `payoutsFinal[${i}].amount`)).plus(sumOrZero(r.fee, `payoutsFinal[${i}].fee`)),
    new Decimal(0),
  );
}

// Array.isArray does not narrow readonly arrays out of a union.
const isList = <T, S>(value: readonly T[] | S): value is readonly T[] => Array.isArray(value);
