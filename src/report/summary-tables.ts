import { Decimal } from '../money/decimal.ts';
import { COLUMN } from './columns.ts';
import type { RateSnapshotRow } from '../db/reports.ts';
import { USDT_DECIMALS } from '../tabular/format.ts';
import { AGING_BUCKETS, type OpenItemTotals } from './open-items.ts';
import { DIRECTIONS, PROVIDER_STATES, REPORT_VERDICTS, type OrderTotals, type OrderTotalsAccumulator } from './order-totals.ts';
import type { Table, TableColumn, TableRow, TableSpec } from '../tabular/table.ts';

/**
 * The summary as separate tables, each with its own header: one CSV file per table
 * (summary_orders.csv, summary_open_items.csv, summary_late_changes.csv; the roll-forward's in
 * rollforward-tables.ts), and the same tables in the workbook's Summary sheet, report.html and
 * the e-mail. Values raw, as every Table: amounts as decimal text.
 */

/** The last rate snapshot per currency (rows arrive ordered by currency, taken_at, id). */
export function lastRateByCurrency(rates: readonly RateSnapshotRow[]): Map<string, RateSnapshotRow> {
  const out = new Map<string, RateSnapshotRow>();
  for (const r of rates) out.set(r.currency, r);
  return out;
}

const ORDER_COLUMNS: readonly TableColumn[] = [
  COLUMN.currency,
  COLUMN.direction,
  { name: 'orders', kind: 'count' },
  ...REPORT_VERDICTS.map((v) => ({ name: v, kind: 'count' as const })),
  ...PROVIDER_STATES.map((p) => ({ name: `provider_${p}`, kind: 'count' as const, label: `provider ${p}` })),
  { name: 'gross', kind: 'amount' },
  { name: 'paid', kind: 'amount' },
  { name: 'fees', kind: 'amount' },
  { name: 'net', kind: 'amount' },
  { name: 'usdt_rate', kind: 'decimal', label: 'USDT rate' },
  { name: 'net_usdt', kind: 'decimal', label: 'net USDT', decimals: USDT_DECIMALS },
  // Last, so the columns before it keep their places for scripts that read them by position.
  { name: 'identity_mismatches', kind: 'count', label: 'identity mismatches' },
  // Added after it, for the same reason: gross and fees in USDT beside net USDT.
  { name: 'gross_usdt', kind: 'decimal', label: 'gross USDT', decimals: USDT_DECIMALS },
  { name: 'fees_usdt', kind: 'decimal', label: 'fees USDT', decimals: USDT_DECIMALS },
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

export const ORDERS_SUMMARY: TableSpec = {
  name: 'summary_orders',
  title: 'Orders by currency and direction',
  columns: ORDER_COLUMNS,
  notes: [
    'Counts by verdict and by what the provider says (none: no answer from the provider). Money columns sum the orders the provider reports as success, but for identity mismatches.',
    'gross = Σ amount; paid = Σ paid amount (payouts: the amount sent); fees = Σ provider fee.',
    'net = the effect on the provider balance: payments paid − fees (an inflow, +), payouts −(amount + fees) (an outflow, −); the total row adds both.',
    'identity mismatches: orders whose provider record is another order, another method or in another currency (CURRENCY, METHOD, MERCHANT_REF); counted above, their money in no money column: see summary_identity_mismatches.',
    'USDT rate: the day’s last rate snapshot (deposit for payments, withdraw for payouts), currency units per 1 USDT; gross, fees and net USDT = the amount ÷ that rate; a total row adds the USDT of both directions.',
  ],
};

export const OPEN_ITEMS_SUMMARY: TableSpec = {
  name: 'summary_open_items',
  title: 'Open items of earlier days',
  columns: [
    COLUMN.currency,
    { name: 'aging_bucket', kind: 'text', label: 'age (days)' },
    { name: 'orders', kind: 'count' },
    ...REPORT_VERDICTS.map((v) => ({ name: v, kind: 'count' as const })),
  ],
};

export const LATE_CHANGES_SUMMARY: TableSpec = {
  name: 'summary_late_changes',
  title: 'Late changes to earlier days',
  columns: [COLUMN.currency, { name: 'orders', kind: 'count' }],
};

/** Orders by currency and direction, then a total row per currency (both directions). */
export function ordersTable(
  currencies: readonly string[],
  totals: OrderTotalsAccumulator,
  rates: ReadonlyMap<string, RateSnapshotRow>,
): Table {
  const rows: TableRow[] = [];
  for (const c of currencies) {
    const both = DIRECTIONS.map((d) => totals.get(c, d));
    // USDT per direction at its own rate; the currency's total row adds the two (a sum of USDT, not one rate).
    const usdt = { net: new Decimal(0), gross: new Decimal(0), fees: new Decimal(0), rated: true };
    DIRECTIONS.forEach((d, i) => {
      const rate = rates.get(c);
      const rateText = rate ? (d === 'payment' ? rate.deposit : rate.withdraw) : null;
      const usable = rateText !== null && !new Decimal(rateText).isZero();
      const inUsdt = (v: Decimal) => (usable ? v.dividedBy(rateText!).toFixed(USDT_DECIMALS) : null);
      const [net, gross, fees] = [inUsdt(both[i].net), inUsdt(both[i].gross), inUsdt(both[i].fees)];
      if (net === null || gross === null || fees === null) usdt.rated = false;
      else {
        usdt.net = usdt.net.plus(net);
        usdt.gross = usdt.gross.plus(gross);
        usdt.fees = usdt.fees.plus(fees);
      }
      rows.push([...orderValues(c, d, both[i]), rateText, net, both[i].identity, gross, fees]);
    });
    const sum = both.reduce((a, b) => ({
      orders: a.orders + b.orders,
      verdicts: Object.fromEntries(REPORT_VERDICTS.map((v) => [v, a.verdicts[v] + b.verdicts[v]])) as OrderTotals['verdicts'],
      providers: Object.fromEntries(PROVIDER_STATES.map((p) => [p, a.providers[p] + b.providers[p]])) as OrderTotals['providers'],
      settled: a.settled + b.settled,
      identity: a.identity + b.identity,
      gross: a.gross.plus(b.gross),
      paid: a.paid.plus(b.paid),
      fees: a.fees.plus(b.fees),
      net: a.net.plus(b.net),
    }));
    const u = (v: Decimal) => (usdt.rated ? v.toFixed(USDT_DECIMALS) : null);
    rows.push([...orderValues(c, 'total', sum), null, u(usdt.net), sum.identity, u(usdt.gross), u(usdt.fees)]);
  }
  const unrated = currencies.filter((c) => !rates.has(c));
  return {
    ...ORDERS_SUMMARY,
    rows,
    notes: [
      ...(ORDERS_SUMMARY.notes ?? []),
      ...(unrated.length ? [`No rate snapshot this day for ${unrated.join(', ')}: no USDT figures.`] : []),
    ],
  };
}

/** Open items of earlier days per currency and aging bucket (open_items.csv counted). */
export function openItemsSummaryTable(totals: OpenItemTotals): Table {
  return {
    ...OPEN_ITEMS_SUMMARY,
    rows: totals.rows().map((t) => [t.currency, t.bucket, t.orders, ...REPORT_VERDICTS.map((v) => t.verdicts.get(v) ?? 0)]),
    notes: totals.count === 0 ? ['No open items.'] : [`Aging buckets in business days: ${AGING_BUCKETS.join(', ')}.`],
  };
}

/** Late changes per currency (late_changes.csv counted). */
export function lateChangesSummaryTable(byCurrency: ReadonlyMap<string, number>): Table {
  return {
    ...LATE_CHANGES_SUMMARY,
    rows: [...byCurrency.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([c, n]) => [c, n]),
    notes:
      byCurrency.size === 0
        ? ['No late changes.']
        : ["Orders of earlier days whose verdict or codes changed since their day's last report."],
  };
}
