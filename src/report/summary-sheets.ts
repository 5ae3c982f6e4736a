import { Decimal } from '../money/decimal.ts';
import { USDT_DECIMALS } from '../tabular/format.ts';
import type { Table, TableRow } from '../tabular/table.ts';

/**
 * The workbook's Summary and "Orders by verdict" sheets, from the one orders table
 * (summary_orders.csv): the money on the Summary, the counts beside it on a sheet of their own.
 * Together, 23 columns printed on one page width were too small to read; apart, the Summary fits a
 * landscape page at a readable size.
 */
const MONEY = ['currency', 'direction', 'orders', 'gross', 'paid', 'fees', 'net', 'usdt_rate', 'gross_usdt', 'fees_usdt', 'net_usdt'];
const USDT = ['gross_usdt', 'fees_usdt', 'net_usdt'];

function project(t: Table, keep: (name: string) => boolean): Table {
  const idx = t.columns.flatMap((c, i) => (keep(c.name) ? [i] : []));
  return { ...t, columns: idx.map((i) => t.columns[i]), rows: t.rows.map((r) => idx.map((i) => r[i])) };
}

/**
 * The USDT of every currency's total row added: one figure for the day across currencies (local
 * amounts are never added across currencies). Empty where a currency has no USDT figures.
 */
function usdtOverall(t: Table): TableRow {
  const col = (name: string) => t.columns.findIndex((c) => c.name === name);
  const totals = t.rows.filter((r) => r[col('direction')] === 'total');
  return t.columns.map((c) => {
    if (c.name === 'currency') return 'all';
    if (c.name === 'direction') return 'total USDT';
    if (!USDT.includes(c.name)) return null;
    const values = totals.map((r) => r[col(c.name)]);
    if (values.length === 0 || values.some((v) => v === null || v === '')) return null;
    return values.reduce<Decimal>((a, v) => a.plus(String(v)), new Decimal(0)).toFixed(USDT_DECIMALS);
  });
}

export function summarySheets(orders: Table): { summary: Table; verdicts: Table } {
  const money = project(orders, (n) => MONEY.includes(n));
  const summary: Table = {
    ...money,
    rows: [...money.rows, usdtOverall(money)],
    notes: [
      ...(orders.notes ?? []),
      'all, total USDT: the USDT of every currency added (local amounts are not added across currencies).',
      'The counts by verdict and by provider status are on the sheet Orders by verdict.',
    ],
  };
  const verdicts = project(orders, (n) => !MONEY.slice(3).includes(n));
  return { summary, verdicts: { ...verdicts, title: 'Orders by verdict and provider status', notes: [] } };
}
