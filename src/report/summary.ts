import { Decimal, isCurrency } from '../money/decimal.ts';
import type { BalanceSnapshotRow, FinalizedMovement, RateSnapshotRow } from '../db/reports.ts';
import { rollForward } from '../recon/rollforward.ts';
import { amountCell, decimalCell, usdtCell } from './format.ts';
import { textCell } from './neutralize.ts';
import { DIRECTIONS, REPORT_VERDICTS, type OrderTotalsAccumulator } from './order-totals.ts';

/**
 * summary.csv is one table with a `section` column so a spreadsheet reads it as-is
 * (filter on section); a column that does not apply to a section is empty.
 *
 * section "orders", one row per currency and direction, over the day's checked orders
 * (latest check per order, as in items.csv):
 *   orders, matched..error   counts per verdict
 *   settled                  orders the provider reports as success; the money columns sum these
 *   gross                    Σ amount; fees: Σ provider fee
 *   net                      signed effect on the provider balance: payments Σ(paid − fee) as +,
 *                            payouts Σ(amount + fee) as − (an outflow), so the column sums to the day's net
 *   usdt_rate                the day's last rate snapshot: deposit for payments, withdraw for payouts,
 *                            read as currency units per 1 USDT
 *   net_usdt                 net / usdt_rate, 6 decimals
 *
 * section "rollforward", one row per currency, between the day's first and last balance snapshot:
 *   opening, closing         available + pending + held of those snapshots
 *   payments_in              Σ(paid − fee) of payments finalized success in (opening, closing]
 *   payouts_out              Σ(amount + fee) of payouts finalized success in (opening, closing]
 *   explained_movement       payments_in − payouts_out; expected_closing = opening + explained
 *   drift                    closing − expected_closing; within_tolerance against RECON_TOLERANCE
 */
export const SUMMARY_COLUMNS = [
  'section',
  'currency',
  'direction',
  'orders',
  ...REPORT_VERDICTS,
  'settled',
  'gross',
  'fees',
  'net',
  'usdt_rate',
  'net_usdt',
  'opening',
  'payments_in',
  'payouts_out',
  'explained_movement',
  'expected_closing',
  'closing',
  'drift',
  'tolerance',
  'within_tolerance',
  'note',
] as const;

type Column = (typeof SUMMARY_COLUMNS)[number];

function row(cells: Partial<Record<Column, string>>): string[] {
  return SUMMARY_COLUMNS.map((c) => cells[c] ?? '');
}

/** The last snapshot per currency (rows arrive ordered by currency, taken_at, id). */
export function lastRateByCurrency(rates: readonly RateSnapshotRow[]): Map<string, RateSnapshotRow> {
  const out = new Map<string, RateSnapshotRow>();
  for (const r of rates) out.set(r.currency, r);
  return out;
}

export function orderRows(currency: string, totals: OrderTotalsAccumulator, rate: RateSnapshotRow | undefined): string[][] {
  return DIRECTIONS.map((direction) => {
    const t = totals.get(currency, direction);
    const rateText = rate ? (direction === 'payment' ? rate.deposit : rate.withdraw) : null;
    const rateValue = rateText === null ? null : new Decimal(rateText);
    const usable = rateValue !== null && !rateValue.isZero();
    return row({
      section: 'orders',
      currency: textCell(currency),
      direction,
      orders: String(t.orders),
      ...Object.fromEntries(REPORT_VERDICTS.map((v) => [v, String(t.verdicts[v])])),
      settled: String(t.settled),
      gross: amountCell(t.gross, currency),
      fees: amountCell(t.fees, currency),
      net: amountCell(t.net, currency),
      usdt_rate: decimalCell(rateText),
      net_usdt: usdtCell(usable ? t.net.dividedBy(rateValue) : null),
      note: rate === undefined ? 'no rate snapshot this day' : usable ? '' : 'rate is zero',
    });
  });
}

/**
 * The roll-forward row of a currency. balances: that currency's snapshots of the day in
 * taken_at order; one snapshot alone is an opening with no closing, so nothing is checked.
 */
export function rollForwardRow(
  currency: string,
  balances: readonly BalanceSnapshotRow[],
  movement: FinalizedMovement,
  tolerance: string,
): string[] {
  if (!isCurrency(currency)) {
    return row({ section: 'rollforward', currency: textCell(currency), note: 'currency not reconciled by payrecon' });
  }
  const first = balances[0];
  const last = balances.length > 1 ? balances[balances.length - 1] : undefined;
  const result = rollForward({
    currency,
    opening: first ? { available: first.available, pending: first.pending, held: first.held } : null,
    closing: last ? { available: last.available, pending: last.pending, held: last.held } : null,
    paymentsFinal: { paidAmount: movement.payments.paidAmount, fee: movement.payments.fee },
    payoutsFinal: { amount: movement.payouts.amount, fee: movement.payouts.fee },
    tolerance,
  });
  const sum = (v: string | null) => (v === null ? new Decimal(0) : new Decimal(v));
  const paymentsIn = sum(movement.payments.paidAmount).minus(sum(movement.payments.fee));
  const payoutsOut = sum(movement.payouts.amount).plus(sum(movement.payouts.fee));
  return row({
    section: 'rollforward',
    currency,
    opening: amountCell(result.openingTotal, currency),
    payments_in: amountCell(paymentsIn, currency),
    payouts_out: amountCell(payoutsOut, currency),
    explained_movement: amountCell(result.explainedMovement, currency),
    expected_closing: amountCell(result.expectedClosing, currency),
    closing: amountCell(result.closingTotal, currency),
    drift: amountCell(result.drift, currency),
    tolerance: amountCell(tolerance, currency),
    within_tolerance: result.withinTolerance === null ? '' : String(result.withinTolerance),
    note: textCell(result.note),
  });
}
