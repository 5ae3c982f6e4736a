import { Decimal } from '../money/decimal.ts';
import type { ReportItemRow } from '../db/reports.ts';

import { REPORT_VERDICTS, type ReportVerdict } from '../recon/types.ts';

export { REPORT_VERDICTS, type ReportVerdict };
export const DIRECTIONS = ['payment', 'payout'] as const;
/** What the provider said of an order at its latest check; `none`: no answer (unchecked, error, not found). */
export const PROVIDER_STATES = ['success', 'pending', 'failed', 'unknown', 'none'] as const;
export type ProviderState = (typeof PROVIDER_STATES)[number];

/** One currency and direction of the day's orders. */
export interface OrderTotals {
  orders: number;
  verdicts: Record<ReportVerdict, number>;
  /** Counts by the provider's status category at the latest check. */
  providers: Record<ProviderState, number>;
  /** Orders the provider reports as success: the only ones whose money moved. */
  settled: number;
  /** Σ provider amount (the merchant's amount where the provider gave none), settled orders. */
  gross: Decimal;
  /** Σ provider paid amount of settled payments (their amount where none was given); payouts: = gross. */
  paid: Decimal;
  /** Σ provider fee, settled orders. */
  fees: Decimal;
  /** Signed effect on the provider balance: payments +(paid − fee), payouts −(amount + fee). */
  net: Decimal;
}

function emptyTotals(): OrderTotals {
  return {
    orders: 0,
    verdicts: { matched: 0, resolved: 0, pending: 0, mismatch: 0, error: 0, unchecked: 0 },
    providers: { success: 0, pending: 0, failed: 0, unknown: 0, none: 0 },
    settled: 0,
    gross: new Decimal(0),
    paid: new Decimal(0),
    fees: new Decimal(0),
    net: new Decimal(0),
  };
}

const orZero = (v: string | null): Decimal => (v === null ? new Decimal(0) : new Decimal(v));

/**
 * Sums the day's items as they stream past (the same rows items.csv gets), so the summary
 * agrees with items.csv by construction and needs no second pass over a million rows.
 */
export class OrderTotalsAccumulator {
  private readonly byKey = new Map<string, OrderTotals>();
  readonly currencies = new Set<string>();
  readonly runIds = new Set<string>();

  add(r: ReportItemRow): void {
    const key = `${r.currency}\u0000${r.direction}`;
    let t = this.byKey.get(key);
    if (!t) {
      t = emptyTotals();
      this.byKey.set(key, t);
      this.currencies.add(r.currency);
    }
    if (r.run_id !== null) this.runIds.add(r.run_id);
    t.orders += 1;
    if (r.verdict in t.verdicts) t.verdicts[r.verdict as keyof OrderTotals['verdicts']] += 1;
    const state = (r.provider_category ?? 'none') as ProviderState;
    t.providers[state in t.providers ? state : 'unknown'] += 1;
    if (r.provider_category !== 'success') return;
    t.settled += 1;
    const amount = new Decimal(r.provider_amount ?? r.local_amount);
    const fee = orZero(r.provider_fee);
    t.gross = t.gross.plus(amount);
    t.fees = t.fees.plus(fee);
    if (r.direction === 'payment') {
      const paid = r.provider_paid_amount === null ? amount : new Decimal(r.provider_paid_amount);
      t.paid = t.paid.plus(paid);
      t.net = t.net.plus(paid.minus(fee));
    } else {
      t.paid = t.paid.plus(amount);
      t.net = t.net.minus(amount.plus(fee));
    }
  }

  /** Every currency and direction summed, for the headline. */
  overall(): { orders: number; verdicts: Record<ReportVerdict, number> } {
    const verdicts = emptyTotals().verdicts;
    let orders = 0;
    for (const t of this.byKey.values()) {
      orders += t.orders;
      for (const v of REPORT_VERDICTS) verdicts[v] += t.verdicts[v];
    }
    return { orders, verdicts };
  }

  /** Zero totals for a currency and direction without orders, so every row is present. */
  get(currency: string, direction: string): OrderTotals {
    return this.byKey.get(`${currency}\u0000${direction}`) ?? emptyTotals();
  }
}
