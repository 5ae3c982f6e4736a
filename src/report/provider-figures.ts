import type { ReportOrderRow } from '../db/report-orders.ts';

/** The columns of a report row (recon_items' latest check) that hold what the provider said about the money. */
export type ProviderFiguresSource = Pick<ReportOrderRow, 'direction' | 'provider_amount' | 'provider_paid_amount' | 'provider_fee'>;

/** What the provider's answer moved for one order, decimal text; null where the check had no such figure. */
export interface ProviderFigures {
  /** A payment's paid amount (its amount where the provider gave none), a payout's amount. */
  moved: string | null;
  fee: string | null;
}

/**
 * The one reading of the provider's figures on a report row: every report output that sums or prices
 * what the provider collected (Summary, identity-mismatch totals, fee differences) goes through here,
 * so a payment's paid amount stands in for its amount the same way everywhere. The database side of the
 * rule (the roll-forward reads payment_orders/payout_orders.provider_*) is src/db/settlement.ts; the
 * database contract says which output reads which.
 */
export function providerFigures(r: ProviderFiguresSource): ProviderFigures {
  const moved = r.direction === 'payment' ? (r.provider_paid_amount ?? r.provider_amount) : r.provider_amount;
  return { moved, fee: r.provider_fee };
}
