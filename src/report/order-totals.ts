import { Decimal } from '../money/decimal.ts';
import { ScaledSum } from '../money/scaled-sum.ts';
import type { ReportItemRow } from '../db/reports.ts';
import { IdentityMismatchTotals, isNotThisOrder } from './identity-mismatches.ts';

import { REPORT_VERDICTS, type ReportVerdict } from '../domain/verdicts.ts';

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
  /** Orders whose provider record is not this order's money (CURRENCY, METHOD, MERCHANT_REF): counted, in no money sum. */
  identity: number;
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
    identity: 0,
    gross: new Decimal(0),
    paid: new Decimal(0),
    fees: new Decimal(0),
    net: new Decimal(0),
  };
}

/** The money sums of one currency and direction while the rows stream past (exact, no Decimal per row). */
interface Sums {
  gross: ScaledSum;
  paid: ScaledSum;
  fees: ScaledSum;
  net: ScaledSum;
}

/**
 * Sums the day's items as they stream past (the same rows items.csv gets), so the summary
 * agrees with items.csv by construction and needs no second pass over a million rows.
 */
export class OrderTotalsAccumulator {
  private readonly byKey = new Map<string, OrderTotals>();
  private readonly sums = new Map<OrderTotals, Sums>();
  readonly currencies = new Set<string>();
  readonly runIds = new Set<string>();
  /** The money of the orders left out of every currency's sums, shown apart (summary_identity_mismatches). */
  readonly apart = new IdentityMismatchTotals();

  add(r: ReportItemRow): void {
    const key = `${r.currency}\u0000${r.direction}`;
    let t = this.byKey.get(key);
    if (!t) {
      t = emptyTotals();
      this.byKey.set(key, t);
      this.sums.set(t, { gross: new ScaledSum(), paid: new ScaledSum(), fees: new ScaledSum(), net: new ScaledSum() });
      this.currencies.add(r.currency);
    }
    if (r.run_id !== null) this.runIds.add(r.run_id);
    t.orders += 1;
    if (r.verdict in t.verdicts) t.verdicts[r.verdict as keyof OrderTotals['verdicts']] += 1;
    const state = (r.provider_category ?? 'none') as ProviderState;
    t.providers[state in t.providers ? state : 'unknown'] += 1;
    // Another order's money, or money in another currency: summing it here would put it in this currency's totals.
    if (isNotThisOrder(r)) {
      t.identity += 1;
      this.apart.add(r);
      return;
    }
    if (r.provider_category !== 'success') return;
    t.settled += 1;
    const s = this.sums.get(t)!;
    const amount = r.provider_amount ?? r.local_amount;
    s.gross.add(amount);
    if (r.provider_fee !== null) {
      s.fees.add(r.provider_fee);
      s.net.add(r.provider_fee, -1);
    }
    if (r.direction === 'payment') {
      const paid = r.provider_paid_amount ?? amount;
      s.paid.add(paid);
      s.net.add(paid);
    } else {
      s.paid.add(amount);
      s.net.add(amount, -1);
    }
  }

  /** The totals with their money sums as Decimals. */
  private settle(t: OrderTotals): OrderTotals {
    const s = this.sums.get(t);
    return s ? { ...t, gross: s.gross.toDecimal(), paid: s.paid.toDecimal(), fees: s.fees.toDecimal(), net: s.net.toDecimal() } : t;
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
    const t = this.byKey.get(`${currency}\u0000${direction}`);
    return t ? this.settle(t) : emptyTotals();
  }
}
