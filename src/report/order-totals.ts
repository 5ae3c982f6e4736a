import { Decimal } from '../money/decimal.ts';
import { scanDecimal, smallScaledValue } from '../money/decimal-text.ts';
import { ScaledSum } from '../money/scaled-sum.ts';
import type { ReportItemRow } from '../db/reports.ts';
import { providerFigures } from './provider-figures.ts';
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

/** What one order adds to the Summary's money columns (decimal text). */
export interface SettledMoney {
  gross: string;
  paid: string;
  fee: string | null;
}

/**
 * An order's share of the Summary's money, or null when it has none: only orders the provider
 * reports as success moved money, and an identity mismatch's money is another order's. gross: the
 * provider's amount (the merchant's where none was given); paid: a payment's paid amount (its
 * amount where none was given), a payout's amount; fee: the provider's.
 */
export function settledMoney(r: ReportItemRow): SettledMoney | null {
  if (r.provider_category !== 'success' || isNotThisOrder(r)) return null;
  const { moved, fee } = providerFigures(r);
  const gross = r.provider_amount ?? r.local_amount;
  return { gross, paid: moved ?? gross, fee };
}

/** The signed effect on the provider balance: payments +(paid − fee), payouts −(amount + fee). */
export function settledNet(direction: string, m: SettledMoney): string {
  const fee = m.fee ?? '0';
  return direction === 'payment' ? sum(m.paid, 1, fee, -1) : sum(m.gross, -1, fee, -1);
}

/**
 * sa·a + sb·b exactly, as decimal text with the more decimals of the two: as whole numbers of the
 * smallest unit when both are short (a million rows, no Decimal each), else with Decimal.
 */
function sum(a: string, sa: 1 | -1, b: string, sb: 1 | -1): string {
  // scanDecimal reuses one result object: each value is scanned again right before it is read.
  const scale = Math.max(scanDecimal(a)?.fractionDigits ?? 0, scanDecimal(b)?.fractionDigits ?? 0);
  const scanA = scanDecimal(a);
  const va = scanA && smallScaledValue(a, scanA, scale);
  const scanB = scanDecimal(b);
  const vb = scanB && smallScaledValue(b, scanB, scale);
  if (va == null || vb == null) return new Decimal(a).times(sa).plus(new Decimal(b).times(sb)).toFixed(scale);
  const v = sa * va + sb * vb;
  const digits = String(Math.abs(v)).padStart(scale + 1, '0');
  const whole = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return v < 0 ? `-${whole}` : whole;
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
    const m = settledMoney(r);
    if (m === null) return;
    t.settled += 1;
    const s = this.sums.get(t)!;
    s.gross.add(m.gross);
    s.paid.add(m.paid);
    if (m.fee !== null) {
      s.fees.add(m.fee);
      s.net.add(m.fee, -1);
    }
    s.net.add(r.direction === 'payment' ? m.paid : m.gross, r.direction === 'payment' ? 1 : -1);
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
