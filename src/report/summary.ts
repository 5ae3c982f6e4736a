import { Decimal, isCurrency } from '../money/decimal.ts';
import type { RateSnapshotRow } from '../db/reports.ts';
import type { SnapshotRollForward } from '../snapshot/rollforward.ts';
import type { OpenItemTotals } from './open-items.ts';
import { amountCell, decimalCell, usdtCell } from './format.ts';
import { textCell } from './neutralize.ts';
import { DIRECTIONS, REPORT_VERDICTS, type OrderTotalsAccumulator } from './order-totals.ts';

/**
 * summary.csv is one table with a `section` column so a spreadsheet reads it as-is
 * (filter on section); a column that does not apply to a section is empty.
 *
 * section "headline", one row: the report's headline in `note` (the e-mail subject says the same).
 *
 * section "orders", one row per currency and direction, over the day's orders (created on the
 * business day, each with its latest check, as in items.csv):
 *   orders, matched..unchecked  counts per verdict (unchecked: never checked yet)
 *   settled                  orders the provider reports as success; the money columns sum these
 *   gross                    Σ amount; fees: Σ provider fee
 *   net                      signed effect on the provider balance: payments Σ(paid − fee) as +,
 *                            payouts Σ(amount + fee) as − (an outflow), so the column sums to the day's net
 *   usdt_rate                the day's last rate snapshot: deposit for payments, withdraw for payouts,
 *                            read as currency units per 1 USDT
 *   net_usdt                 net / usdt_rate, 6 decimals
 *
 * section "open_items", one row per currency and aging bucket (open_items.csv counted):
 *   aging_bucket, orders, and the verdict counts of those orders.
 *
 * section "late_changes", one row per currency: orders of earlier days whose verdict or codes
 *   changed since their day's report (late_changes.csv counted).
 *
 * section "rollforward", one row per currency, between the day's first and last balance snapshot:
 *   opening_at, opening      time and available + pending + held of the first snapshot
 *   payments_in              Σ(paid − fee) of payments final success between the two readings (finality
 *                            intervals inside, plus timing items the roll-forward assigned to the day)
 *   payouts_out              Σ(amount + fee) of payouts, likewise
 *   explained_movement       payments_in − payouts_out; expected_closing = opening + explained
 *   closing_at, closing      the last snapshot
 *   drift                    closing − expected_closing; within_tolerance against RECON_TOLERANCE
 */
export const SUMMARY_COLUMNS = [
  'section',
  'currency',
  'direction',
  'aging_bucket',
  'orders',
  ...REPORT_VERDICTS,
  'settled',
  'gross',
  'fees',
  'net',
  'usdt_rate',
  'net_usdt',
  'opening_at',
  'opening',
  'payments_in',
  'payouts_out',
  'explained_movement',
  'expected_closing',
  'closing_at',
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

export function headlineRow(headline: string): string[] {
  return row({ section: 'headline', note: textCell(headline) });
}

export function openItemRows(totals: OpenItemTotals): string[][] {
  return totals.rows().map((t) =>
    row({
      section: 'open_items',
      currency: textCell(t.currency),
      aging_bucket: t.bucket,
      orders: String(t.orders),
      ...Object.fromEntries(REPORT_VERDICTS.map((v) => [v, String(t.verdicts.get(v) ?? 0)])),
    }),
  );
}

export function lateChangeRows(byCurrency: ReadonlyMap<string, number>): string[][] {
  return [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, n]) => row({ section: 'late_changes', currency: textCell(currency), orders: String(n) }));
}

/**
 * The roll-forward row of a currency, as the day's roll-forward computed it (first to last
 * balance snapshot of the day; one snapshot alone is an opening with no closing, so nothing is checked).
 */
export function rollForwardRow(currency: string, r: SnapshotRollForward | null, formatTime: (epochMs: number) => string): string[] {
  if (r === null || !isCurrency(currency)) {
    return row({ section: 'rollforward', currency: textCell(currency), note: 'currency not reconciled by payrecon' });
  }
  const sum = (v: string | null | undefined) => (v === null || v === undefined ? new Decimal(0) : new Decimal(v));
  // Timing items (orders whose finality may fall on either side of a snapshot) count on the side the
  // roll-forward assigned them to, so opening + explained = expected closing holds in the row.
  const timing = (direction: 'payment' | 'payout') =>
    r.timingItems.filter((i) => i.assignedIn && i.direction === direction).reduce((acc, i) => acc.plus(i.effect), new Decimal(0));
  const paymentsIn = sum(r.sums?.payments.paidAmount).minus(sum(r.sums?.payments.fee)).plus(timing('payment'));
  const payoutsOut = sum(r.sums?.payouts.amount).plus(sum(r.sums?.payouts.fee)).minus(timing('payout'));
  return row({
    section: 'rollforward',
    currency,
    opening_at: r.opening ? formatTime(r.opening.takenAt.getTime()) : '',
    opening: amountCell(r.openingTotal, currency),
    payments_in: amountCell(paymentsIn, currency),
    payouts_out: amountCell(payoutsOut, currency),
    explained_movement: amountCell(new Decimal(r.explainedMovement).plus(r.timingMovement), currency),
    expected_closing: amountCell(r.expectedClosing, currency),
    closing_at: r.closing ? formatTime(r.closing.takenAt.getTime()) : '',
    closing: amountCell(r.closingTotal, currency),
    drift: amountCell(r.drift, currency),
    tolerance: amountCell(r.tolerance, currency),
    within_tolerance: r.withinTolerance === null ? '' : String(r.withinTolerance),
    note: textCell(r.note),
  });
}
