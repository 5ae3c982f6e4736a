import { Decimal, isCurrency, normalizeDecimal, type Currency } from '../money/decimal.ts';
import { readAmount } from '../recon/amounts.ts';
import { buildJournal, type JournalDay, type LateChange } from '../recon/journal.ts';
import type { DayRate } from '../recon/journal-usdt.ts';
import { feeRuleFor, scheduledFee } from '../recon/fees.ts';
import type { ReconPolicy } from '../recon/types.ts';
import type { Direction } from '../domain/types.ts';
import type { RateSnapshotRow, ReportItemRow } from '../db/reports.ts';
import type { SnapshotRollForward } from '../snapshot/rollforward.ts';
import { providerFigures } from './provider-figures.ts';

/**
 * The inputs of a day's journal as the report gathers them (docs/guides/for-accounting.md): the roll-forward
 * per currency (provider values, as summary_rollforward.csv), the late changes observed in the day,
 * the fee differences against the contract of the day's orders, the day's closing rate snapshot.
 */

const codesOf = (s: string | null) => new Set((s ?? '').split(' ').filter(Boolean));

/**
 * A late change counted in an earlier day's figures: the roll-forward of that day, computed now,
 * already holds the provider's new fee (it values orders with the provider's latest answer), so a
 * rerun of the day would move the change back into it and invent drift there. Restoring puts the
 * day's figures back as the balance moved then; the change itself is its own entry, posted once.
 */
export interface Restore {
  currency: string;
  kind: LateChange['kind'];
  direction: Direction;
  walletEffect: string;
  /** False when the roll-forward no longer counts the order (a reversed order, once the provider's status moves it). */
  countedNow: boolean;
}

function restored(rf: SnapshotRollForward, restores: readonly Restore[]): SnapshotRollForward {
  if (restores.length === 0 || rf.sums === null || rf.drift === null) return rf;
  let drift = new Decimal(rf.drift);
  const fees = { payment: readAmount(rf.sums.payments.fee) ?? new Decimal(0), payout: readAmount(rf.sums.payouts.fee) ?? new Decimal(0) };
  for (const r of restores) {
    const e = new Decimal(r.walletEffect);
    if (r.kind === 'fee_correction') {
      // The fee counted now is the new one; the day's balance moved by the old: fee then = fee now + e.
      fees[r.direction] = fees[r.direction].plus(e);
      drift = drift.plus(e);
    }
    // A reversal the roll-forward still counts (countedNow) needs nothing: the day's figures hold the success.
  }
  return {
    ...rf,
    drift: normalizeDecimal(drift),
    sums: {
      payments: {
        ...rf.sums.payments,
        fee: rf.sums.payments.fee === null && fees.payment.isZero() ? null : normalizeDecimal(fees.payment),
      },
      payouts: { ...rf.sums.payouts, fee: rf.sums.payouts.fee === null && fees.payout.isZero() ? null : normalizeDecimal(fees.payout) },
    },
  };
}

/** Σ (provider fee − contracted fee) per currency over the day's orders with a FEE_SCHEDULE finding. */
export class FeeDifferences {
  private readonly sums = new Map<Currency, { total: Decimal; count: number }>();
  constructor(private readonly schedule: ReconPolicy['feeSchedule']) {}

  add(r: ReportItemRow): void {
    // includes() first: a million rows pass here, almost none with a finding.
    if (!this.schedule || !r.mismatch_codes.includes('FEE_SCHEDULE') || !codesOf(r.mismatch_codes).has('FEE_SCHEDULE')) return;
    if (!isCurrency(r.currency)) return;
    const rule = feeRuleFor(this.schedule[r.currency]?.[r.direction as Direction], r.method);
    const figures = providerFigures(r);
    const base = readAmount(figures.moved);
    const fee = readAmount(figures.fee);
    // Scheduled from today's setting: a schedule changed since the check gives today's contract.
    if (!rule || base === null || fee === null) return;
    const diff = fee.minus(scheduledFee(base, rule, r.currency));
    if (diff.isZero()) return;
    const s = this.sums.get(r.currency) ?? { total: new Decimal(0), count: 0 };
    this.sums.set(r.currency, { total: s.total.plus(diff), count: s.count + 1 });
  }

  of(c: Currency): { total: string; count: number } | null {
    const s = this.sums.get(c);
    return s ? { total: normalizeDecimal(s.total), count: s.count } : null;
  }
}

export interface DayJournalInput {
  date: string;
  currencies: readonly string[];
  rollForwards: ReadonlyMap<string, SnapshotRollForward | null>;
  /** The late changes observed in the day, each with its order's currency. */
  late: ReadonlyArray<{ currency: string; change: LateChange }>;
  /** Late changes of orders counted in this day, seen after it (restored: see Restore). */
  restores?: readonly Restore[];
  feeDifferences: FeeDifferences | null;
  rates: readonly RateSnapshotRow[];
}

/** The day's closing rate per currency: its last rate snapshot of the day. */
export function closingRates(rates: readonly RateSnapshotRow[]): Map<string, DayRate> {
  const out = new Map<string, DayRate>();
  for (const r of rates) out.set(r.currency, { deposit: r.deposit, withdraw: r.withdraw });
  return out;
}

/** One JournalDay per reconciled currency, in the report's currency order. */
export function dayJournals(input: DayJournalInput): JournalDay[] {
  const rates = closingRates(input.rates);
  return input.currencies.filter(isCurrency).map((currency) => {
    const now = input.rollForwards.get(currency) ?? null;
    const rf =
      now &&
      restored(
        now,
        (input.restores ?? []).filter((r) => r.currency === currency),
      );
    const s = rf?.sums ?? null;
    return buildJournal({
      date: input.date,
      currency,
      rollForward: {
        opening: rf?.openingTotal ?? null,
        closing: rf?.closingTotal ?? null,
        payments: s?.payments ?? { paidAmount: null, fee: null, count: 0 },
        payouts: s?.payouts ?? { amount: null, fee: null, count: 0 },
        timingItems: rf?.timingItems ?? [],
        movements: rf?.movements ?? [],
        drift: rf?.drift ?? null,
      },
      late: input.late.filter((l) => l.currency === currency).map((l) => l.change),
      feeDifference: input.feeDifferences?.of(currency) ?? null,
      rate: rates.get(currency) ?? null,
    });
  });
}
