import { Decimal, isCurrency, normalizeDecimal, type Currency } from '../money/decimal.ts';
import { readAmount } from '../recon/amounts.ts';
import { buildJournal, type JournalDay, type LateChange } from '../recon/journal.ts';
import type { DayRate } from '../recon/journal-usdt.ts';
import { feeRuleFor, scheduledFee } from '../recon/fees.ts';
import type { ReconPolicy } from '../recon/types.ts';
import type { Direction } from '../domain/types.ts';
import type { LateChangeRow, RateSnapshotRow, ReportItemRow } from '../db/reports.ts';
import type { SnapshotRollForward } from '../snapshot/rollforward.ts';

/**
 * The inputs of a day's journal as the report gathers them (docs/guides/for-accounting.md): the roll-forward
 * per currency (provider values, as summary_rollforward.csv), the late changes observed in the day,
 * the fee differences against the contract of the day's orders, the day's closing rate snapshot.
 */

const codesOf = (s: string | null) => new Set((s ?? '').split(' ').filter(Boolean));
const num = (v: string | null) => readAmount(v) ?? new Decimal(0);

/**
 * A late_changes.csv row as a journal posting, or null when it moves no money (a verdict or code
 * that changed without a reversal or a fee change). Reversal: the provider now says failed what the
 * day's report had as consistent (STATUS newly raised); the balance gives back what the order moved
 * when it was posted (the recorded figures, which the provider's agreed with then). Fee correction:
 * FEE newly raised on a completed order; the balance moves by recorded fee − provider fee.
 */
export function lateChangeOf(r: LateChangeRow): LateChange | null {
  if (!isCurrency(r.currency) || r.verdict === 'unchecked') return null;
  const now = codesOf(r.mismatch_codes);
  const before = codesOf(r.reported_codes);
  const wasFinal = r.reported_verdict === 'matched' || r.reported_verdict === 'resolved';
  const direction = r.direction as Direction;
  const base = { direction, merchantRef: r.merchant_ref, originalDate: r.business_date };
  if (wasFinal && now.has('STATUS') && !before.has('STATUS') && r.provider_category === 'failed') {
    const fee = num(r.local_fee);
    const effect =
      direction === 'payment'
        ? (readAmount(r.local_paid_amount) ?? num(r.local_amount)).minus(fee).negated()
        : num(r.local_amount).plus(fee);
    return { kind: 'reversal', ...base, walletEffect: normalizeDecimal(effect) };
  }
  if (now.has('FEE') && !before.has('FEE') && r.provider_category === 'success' && r.provider_fee !== null) {
    const effect = num(r.local_fee).minus(num(r.provider_fee));
    if (effect.isZero()) return null;
    return { kind: 'fee_correction', ...base, walletEffect: normalizeDecimal(effect) };
  }
  return null;
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
    const base = (r.direction === 'payment' ? readAmount(r.provider_paid_amount) : null) ?? readAmount(r.provider_amount);
    const fee = readAmount(r.provider_fee);
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
    const rf = input.rollForwards.get(currency) ?? null;
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
