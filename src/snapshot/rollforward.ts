import type { Knex } from 'knex';
import type { Currency } from '../money/decimal.ts';
import { boundaryBalanceSnapshots, type BalanceSnapshot } from '../db/snapshots.ts';
import { settlementSums, type SettlementSums } from '../db/settlement.ts';
import { rollForward, type RollForwardResult } from '../recon/rollforward.ts';

type Conn = Knex | Knex.Transaction;

/** A roll-forward with the snapshots and order sums behind it, so a finding can be traced. */
export interface SnapshotRollForward extends RollForwardResult {
  opening: BalanceSnapshot | null;
  closing: BalanceSnapshot | null;
  sums: SettlementSums | null;
  tolerance: string;
}

const totals = (s: BalanceSnapshot | null) => s && { available: s.available, pending: s.pending, held: s.held };

/**
 * Roll-forward between two snapshots of one currency, the movement taken from orders payrecon
 * saw become final success in (opening.taken_at, closing.taken_at]. Either side may be null
 * (nothing to compare yet): the result then carries a note instead of a drift.
 */
export async function snapshotRollForward(
  db: Conn,
  input: { currency: Currency; opening: BalanceSnapshot | null; closing: BalanceSnapshot | null; tolerance: string },
): Promise<SnapshotRollForward> {
  const { currency, opening, closing, tolerance } = input;
  const sums = opening && closing ? await settlementSums(db, currency, opening.takenAt, closing.takenAt) : null;
  const result = rollForward({
    currency,
    opening: totals(opening),
    closing: totals(closing),
    paymentsFinal: sums ? { paidAmount: sums.payments.paidAmount, fee: sums.payments.fee } : [],
    payoutsFinal: sums ? { amount: sums.payouts.amount, fee: sums.payouts.fee } : [],
    tolerance,
  });
  return { ...result, opening, closing, sums, tolerance };
}

/**
 * A business day as a whole: first to last balance snapshot with taken_at in [from, to) (the
 * caller turns a date in REPORT_TIMEZONE into those instants). With fewer than two snapshots
 * the day is not checked, and the note says so.
 */
export async function dayRollForward(
  db: Conn,
  input: { currency: Currency; from: Date; to: Date; tolerance: string },
): Promise<SnapshotRollForward> {
  const { first, last } = await boundaryBalanceSnapshots(db, input.currency, input.from, input.to);
  const closing = last && first && last.id !== first.id ? last : null;
  return snapshotRollForward(db, { currency: input.currency, opening: first, closing, tolerance: input.tolerance });
}
