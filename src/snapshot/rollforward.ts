import type { Knex } from '../db/knex-types.ts';
import type { Currency } from '../money/decimal.ts';
import { boundaryBalanceSnapshots, readingOf, type BalanceSnapshot } from '../db/snapshots.ts';
import { settlementWindow, type SettlementSums } from '../db/settlement.ts';
import { rollForward, type RollForwardResult } from '../recon/rollforward.ts';
import { classifyFinality, type TimingItem } from '../recon/timing-items.ts';
import { windowMovements, type WindowMovement } from '../db/movements.ts';
import { DEFAULT_MOVEMENT_LAG_MS } from './policy.ts';

type Conn = Knex | Knex.Transaction;

/**
 * A roll-forward with the snapshots and order sums behind it, so a finding can be traced: the opening
 * and closing snapshot with their times (openingAt/closingAt: when each balance answer arrived), the
 * movement explained by orders certainly final in between, the timing items and the side each was
 * assigned to, the drift and whether it is within tolerance.
 */
export interface SnapshotRollForward extends RollForwardResult {
  opening: BalanceSnapshot | null;
  closing: BalanceSnapshot | null;
  openingAt: Date | null;
  closingAt: Date | null;
  sums: SettlementSums | null;
  /**
   * Approved movements counted in the window: those certainly inside it (their effects make
   * movementsMovement) and the timing items among them assigned in (timing: true).
   */
  movements: CountedMovement[];
  tolerance: string;
}

/** A window's movement as the roll-forward counted it: the stored row without its interval, and whether it is a timing item. */
export interface CountedMovement extends Omit<WindowMovement, 'from' | 'to'> {
  timing: boolean;
}

const totals = (s: BalanceSnapshot | null) => s && { available: s.available, pending: s.pending, held: s.held };

/**
 * Roll-forward between two snapshots of one currency. Each order's finality is an interval (last
 * seen open, first seen final]; orders whose interval lies between the two balance readings explain
 * the movement, those overlapping a reading are timing items (see recon/timing-items.ts). Either
 * snapshot may be null (nothing to compare yet): the result then carries a note instead of a drift.
 */
export async function snapshotRollForward(
  db: Conn,
  input: {
    currency: Currency;
    opening: BalanceSnapshot | null;
    closing: BalanceSnapshot | null;
    tolerance: string;
    /** How long a recorded movement may take to reach the balance, either side of its recorded moment. */
    movementLagMs?: number;
    /** Only this account's orders explain the window (several accounts); undefined: every order. */
    account?: string;
  },
): Promise<SnapshotRollForward> {
  const { currency, opening, closing, tolerance } = input;
  const window = opening && closing ? await settlementWindow(db, currency, readingOf(opening), readingOf(closing), input.account) : null;
  const timingItems: TimingItem[] = [];
  const inside: WindowMovement[] = [];
  const near = new Map<string, WindowMovement>();
  if (window && opening && closing) {
    for (const c of window.candidates) {
      const place = classifyFinality(c, readingOf(opening), readingOf(closing));
      // The query already split certain from uncertain; equal bounds can still classify as in/out here.
      if (place === 'out') continue;
      if (place === 'in') timingItems.push({ ...c, straddles: 'closing', likelyIn: true });
      else timingItems.push({ ...c, ...place });
    }
    // A movement is placed like an order's finality: its recorded interval widened by the lag is when
    // it may have reached the balance; one overlapping a reading is a timing item either window may take.
    const found = await windowMovements(db, {
      currency,
      openingFrom: readingOf(opening).from,
      closingTo: readingOf(closing).to,
      lagMs: input.movementLagMs ?? DEFAULT_MOVEMENT_LAG_MS,
      account: input.account,
    });
    for (const m of found) {
      const place = classifyFinality(m, readingOf(opening), readingOf(closing));
      if (place === 'out') continue;
      near.set(m.id, m);
      if (place === 'in') inside.push(m);
      else
        timingItems.push({
          direction: 'movement',
          orderId: m.id,
          merchantRef: m.reference,
          effect: m.effect,
          from: m.from,
          to: m.to,
          ...place,
        });
    }
  }
  const result = rollForward({
    currency,
    opening: totals(opening),
    closing: totals(closing),
    paymentsFinal: window ? { paidAmount: window.sums.payments.paidAmount, fee: window.sums.payments.fee } : [],
    payoutsFinal: window ? { amount: window.sums.payouts.amount, fee: window.sums.payouts.fee } : [],
    movements: inside.map((m) => m.effect),
    timingItems,
    tolerance,
  });
  return {
    ...result,
    opening,
    closing,
    openingAt: opening?.takenAt ?? null,
    closingAt: closing?.takenAt ?? null,
    sums: window?.sums ?? null,
    movements: [
      ...inside.map((m) => counted(m, false)),
      ...result.timingItems.filter((t) => t.direction === 'movement' && t.assignedIn).map((t) => counted(near.get(t.orderId)!, true)),
    ],
    tolerance,
  };
}

const counted = ({ from: _from, to: _to, ...m }: WindowMovement, timing: boolean): CountedMovement => ({ ...m, timing });

/**
 * A business day as a whole, [from, to) (the caller turns a date in REPORT_TIMEZONE into those
 * instants). Days tile: the opening is the last snapshot before the day (the previous day's
 * closing), or the day's first where none precedes it; the closing is the day's last snapshot.
 * Without two distinct snapshots the day is not checked, and the note says so.
 */
export async function dayRollForward(
  db: Conn,
  input: {
    currency: Currency;
    from: Date;
    to: Date;
    tolerance: string;
    movementLagMs?: number;
    /** Only this account's snapshots, orders and movements (several accounts configured); undefined: as with one account. */
    account?: string;
  },
): Promise<SnapshotRollForward> {
  const { first, last } = await boundaryBalanceSnapshots(db, input.currency, input.from, input.to, input.account);
  const closing = last && first && last.id !== first.id ? last : null;
  return snapshotRollForward(db, {
    currency: input.currency,
    opening: first,
    closing,
    tolerance: input.tolerance,
    movementLagMs: input.movementLagMs,
    account: input.account,
  });
}
