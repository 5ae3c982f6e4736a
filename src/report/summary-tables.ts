import { Decimal, isCurrency } from '../money/decimal.ts';
import type { RateSnapshotRow } from '../db/reports.ts';
import type { SnapshotRollForward } from '../snapshot/rollforward.ts';
import { AGING_BUCKETS, type OpenItemTotals } from './open-items.ts';
import { DIRECTIONS, PROVIDER_STATES, REPORT_VERDICTS, type OrderTotals, type OrderTotalsAccumulator } from './order-totals.ts';
import type { Table, TableColumn, TableRow } from './table.ts';

/**
 * The summary as separate tables (each with its own header), for the workbook's Summary sheet,
 * report.html and the e-mail. Values raw, as every Table: amounts as decimal text.
 */

const ORDER_COLUMNS: readonly TableColumn[] = [
  { name: 'currency', kind: 'text', width: 9 },
  { name: 'direction', kind: 'text', width: 10 },
  { name: 'orders', kind: 'count' },
  ...REPORT_VERDICTS.map((v) => ({ name: v, kind: 'count' as const })),
  ...PROVIDER_STATES.map((p) => ({ name: `provider_${p}`, kind: 'count' as const, label: `provider ${p}` })),
  { name: 'gross', kind: 'amount' },
  { name: 'paid', kind: 'amount' },
  { name: 'fees', kind: 'amount' },
  { name: 'net', kind: 'amount' },
  { name: 'usdt_rate', kind: 'decimal', label: 'USDT rate' },
  { name: 'net_usdt', kind: 'decimal', label: 'net USDT' },
];

function orderValues(currency: string, direction: string, t: OrderTotals): TableRow {
  return [
    currency,
    direction,
    t.orders,
    ...REPORT_VERDICTS.map((v) => t.verdicts[v]),
    ...PROVIDER_STATES.map((p) => t.providers[p]),
    t.gross.toFixed(),
    t.paid.toFixed(),
    t.fees.toFixed(),
    t.net.toFixed(),
  ];
}

/** Orders by currency and direction, then a total row per currency (both directions). */
export function ordersTable(
  currencies: readonly string[],
  totals: OrderTotalsAccumulator,
  rates: ReadonlyMap<string, RateSnapshotRow>,
): Table {
  const rows: TableRow[] = [];
  for (const c of currencies) {
    const both = DIRECTIONS.map((d) => totals.get(c, d));
    DIRECTIONS.forEach((d, i) => {
      const rate = rates.get(c);
      const rateText = rate ? (d === 'payment' ? rate.deposit : rate.withdraw) : null;
      const usable = rateText !== null && !new Decimal(rateText).isZero();
      rows.push([...orderValues(c, d, both[i]), rateText, usable ? both[i].net.dividedBy(rateText!).toFixed(6) : null]);
    });
    const sum = both.reduce((a, b) => ({
      orders: a.orders + b.orders,
      verdicts: Object.fromEntries(REPORT_VERDICTS.map((v) => [v, a.verdicts[v] + b.verdicts[v]])) as OrderTotals['verdicts'],
      providers: Object.fromEntries(PROVIDER_STATES.map((p) => [p, a.providers[p] + b.providers[p]])) as OrderTotals['providers'],
      settled: a.settled + b.settled,
      gross: a.gross.plus(b.gross),
      paid: a.paid.plus(b.paid),
      fees: a.fees.plus(b.fees),
      net: a.net.plus(b.net),
    }));
    rows.push([...orderValues(c, 'total', sum), null, null]);
  }
  return {
    name: 'summary_orders',
    title: 'Orders by currency and direction',
    columns: ORDER_COLUMNS,
    rows,
    notes: [
      'Counts by verdict and by what the provider says (none: no answer from the provider). Money columns sum the orders the provider reports as success.',
      'gross = Σ amount; paid = Σ paid amount (payouts: the amount sent); fees = Σ provider fee.',
      'net = the effect on the provider balance: payments paid − fees (an inflow, +), payouts −(amount + fees) (an outflow, −); the total row adds both.',
      'USDT rate: the day’s last rate snapshot (deposit for payments, withdraw for payouts), currency units per 1 USDT.',
    ],
  };
}

/** Open items of earlier days per currency and aging bucket (open_items.csv counted). */
export function openItemsSummaryTable(totals: OpenItemTotals): Table {
  return {
    name: 'summary_open_items',
    title: 'Open items of earlier days',
    columns: [
      { name: 'currency', kind: 'text', width: 9 },
      { name: 'aging_bucket', kind: 'text', label: 'age (days)' },
      { name: 'orders', kind: 'count' },
      ...REPORT_VERDICTS.map((v) => ({ name: v, kind: 'count' as const })),
    ],
    rows: totals.rows().map((t) => [t.currency, t.bucket, t.orders, ...REPORT_VERDICTS.map((v) => t.verdicts.get(v) ?? 0)]),
    notes: totals.count === 0 ? ['No open items.'] : [`Aging buckets in business days: ${AGING_BUCKETS.join(', ')}.`],
  };
}

/** Late changes per currency (late_changes.csv counted). */
export function lateChangesSummaryTable(byCurrency: ReadonlyMap<string, number>): Table {
  return {
    name: 'summary_late_changes',
    title: 'Late changes to earlier days',
    columns: [
      { name: 'currency', kind: 'text', width: 9 },
      { name: 'orders', kind: 'count' },
    ],
    rows: [...byCurrency.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([c, n]) => [c, n]),
    notes:
      byCurrency.size === 0
        ? ['No late changes.']
        : ["Orders of earlier days whose verdict or codes changed since their day's last report."],
  };
}

const sumOf = (v: string | null | undefined) => (v === null || v === undefined ? new Decimal(0) : new Decimal(v));

/** The day's roll-forward per currency, with the times of the opening and closing snapshots. */
export function rollForwardTable(currencies: readonly string[], results: ReadonlyMap<string, SnapshotRollForward | null>): Table {
  const rows: TableRow[] = currencies.map((c) => {
    const r = results.get(c) ?? null;
    if (r === null || !isCurrency(c))
      return [c, null, null, null, null, null, null, null, null, null, null, null, 'currency not reconciled by payrecon'];
    const paymentsIn = sumOf(r.sums?.payments.paidAmount).minus(sumOf(r.sums?.payments.fee));
    const payoutsOut = sumOf(r.sums?.payouts.amount).plus(sumOf(r.sums?.payouts.fee));
    return [
      c,
      r.opening ? r.opening.takenAt.getTime() : null,
      r.openingTotal,
      r.sums ? paymentsIn.toFixed() : null,
      r.sums ? payoutsOut.toFixed() : null,
      r.explainedMovement,
      r.expectedClosing,
      r.closing ? r.closing.takenAt.getTime() : null,
      r.closingTotal,
      r.drift,
      r.tolerance,
      r.withinTolerance === null ? null : r.withinTolerance ? 'yes' : 'NO',
      r.note ?? null,
    ];
  });
  return {
    name: 'summary_rollforward',
    title: 'Roll-forward per currency',
    columns: [
      { name: 'currency', kind: 'text', width: 9 },
      { name: 'opening_at', kind: 'datetime', label: 'opening snapshot' },
      { name: 'opening', kind: 'amount' },
      { name: 'payments_in', kind: 'amount', label: 'payments in' },
      { name: 'payouts_out', kind: 'amount', label: 'payouts out' },
      { name: 'explained_movement', kind: 'amount', label: 'explained' },
      { name: 'expected_closing', kind: 'amount', label: 'expected closing' },
      { name: 'closing_at', kind: 'datetime', label: 'closing snapshot' },
      { name: 'closing', kind: 'amount' },
      { name: 'drift', kind: 'amount' },
      { name: 'tolerance', kind: 'amount' },
      { name: 'within_tolerance', kind: 'text', label: 'within tolerance' },
      { name: 'note', kind: 'text' },
    ],
    rows,
    notes: [
      'Balances are available + pending + held (credit is a facility, not funds). payments in = Σ(paid − fee), payouts out = Σ(amount + fee) of orders that became final success between the two snapshots.',
    ],
  };
}
