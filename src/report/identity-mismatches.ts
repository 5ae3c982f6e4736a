import { Decimal } from '../money/decimal.ts';
import type { ReportItemRow } from '../db/reports.ts';
import { NOT_THIS_ORDER_CODES } from '../recon/checks.ts';
import { COLUMN } from './columns.ts';
import { providerFigures } from './provider-figures.ts';
import type { Table, TableRow, TableSpec } from '../tabular/table.ts';

const NOT_THIS_ORDER = new Set<string>(NOT_THIS_ORDER_CODES);

/** Whether the row's latest check says the provider's record is not this order's money (CURRENCY, METHOD, MERCHANT_REF). */
export function isNotThisOrder(r: Pick<ReportItemRow, 'mismatch_codes'>): boolean {
  return r.mismatch_codes !== '' && r.mismatch_codes.split(' ').some((c) => NOT_THIS_ORDER.has(c));
}

export const IDENTITY_MISMATCHES_SUMMARY: TableSpec = {
  name: 'summary_identity_mismatches',
  title: 'Provider money that is not the order’s (CURRENCY, METHOD, MERCHANT_REF)',
  // `currency` is the provider's: the amounts are in it, and read in it.
  columns: [
    { ...COLUMN.currency, label: 'provider currency' },
    COLUMN.direction,
    { name: 'order_currency', kind: 'text', label: 'order currency', width: 9 },
    { name: 'orders', kind: 'count' },
    { name: 'provider_success', kind: 'count', label: 'provider success' },
    COLUMN.amount,
    { name: 'fees', kind: 'amount' },
  ],
  notes: [
    'Orders of the day whose provider record is another order, another method or in another currency: in no currency’s gross, paid, fees or net (summary_orders.csv counts them in identity_mismatches); each is a row of mismatches.csv.',
    'currency: the currency the provider holds the order in (empty: checked before payrecon stored it). amount: paid (payments) or sent (payouts) and fees, of the orders the provider reports as success, in that currency.',
  ],
};

interface Apart {
  currency: string;
  direction: string;
  orderCurrency: string;
  orders: number;
  success: number;
  amount: Decimal;
  fees: Decimal;
}

/** The day's orders with a not-this-order finding, per provider currency, direction and order currency. */
export class IdentityMismatchTotals {
  private readonly byKey = new Map<string, Apart>();

  add(r: ReportItemRow): void {
    const currency = r.provider_currency ?? '';
    const key = `${currency}\u0000${r.direction}\u0000${r.currency}`;
    let t = this.byKey.get(key);
    if (!t) {
      t = {
        currency,
        direction: r.direction,
        orderCurrency: r.currency,
        orders: 0,
        success: 0,
        amount: new Decimal(0),
        fees: new Decimal(0),
      };
      this.byKey.set(key, t);
    }
    t.orders += 1;
    if (r.provider_category !== 'success') return;
    t.success += 1;
    const { moved, fee } = providerFigures(r);
    if (moved !== null) t.amount = t.amount.plus(moved);
    if (fee !== null) t.fees = t.fees.plus(fee);
  }

  table(): Table {
    const order = (t: Apart) => `${t.currency}\u0000${t.direction}\u0000${t.orderCurrency}`;
    const rows = [...this.byKey.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
    return {
      ...IDENTITY_MISMATCHES_SUMMARY,
      rows: rows.map((t): TableRow => [
        t.currency,
        t.direction,
        t.orderCurrency,
        t.orders,
        t.success,
        t.amount.toFixed(),
        t.fees.toFixed(),
      ]),
    };
  }
}
