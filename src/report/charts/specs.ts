import { CURRENCY_DECIMALS, Decimal, isCurrency } from '../../money/decimal.ts';
import { groupDigits } from '../../money/group-digits.ts';
import type { TopLevelSpec } from 'vega-lite';
import { CHART_FONT } from './render.ts';

/**
 * The report's three charts as Vega-Lite specs, from plain data. Amounts reach a chart as JS
 * numbers: a chart is a picture of magnitudes, read by eye; the exact figures are in the tables.
 */

/** Orders of one business day carrying one mismatch code (an order with two codes counts under each). */
export interface CodeCount {
  day: string;
  code: string;
  orders: number;
}

export interface RollForwardBars {
  currency: string;
  opening: string | null;
  payments_in: string | null;
  payouts_out: string | null;
  /** The balance effect of the timing items counted in the day. */
  timing_movement: string | null;
  closing: string | null;
  drift: string | null;
}

export interface AgingCount {
  /** The open item's aging bucket, as open_items.csv names it. */
  bucket: string;
  /** Why the item is open: pending, unchecked, error, mismatch. */
  state: string;
  orders: number;
}

const CONFIG = {
  font: CHART_FONT,
  background: 'white',
  view: { stroke: '#d0d4dc' },
  axis: { labelFontSize: 11, titleFontSize: 11, gridColor: '#eceff3' },
  legend: { labelFontSize: 11, titleFontSize: 11 },
  title: { fontSize: 14, anchor: 'start' as const, subtitleColor: '#555' },
};

/**
 * Mismatched orders by code over the business days given that have a report (empty ones too).
 * A day with no report version is left off the axis and counted in the subtitle: drawn like a day
 * without mismatches it would claim what nobody checked, and shaded (29 of 30 bars on a fresh
 * install) it buried the days that were checked.
 */
export function mismatchesByCodeChart(
  days: readonly string[],
  counts: readonly CodeCount[],
  reportedDays: readonly string[],
): TopLevelSpec {
  const total = counts.reduce((s, c) => s + c.orders, 0);
  const reported = new Set(reportedDays);
  const unreported = days.filter((d) => !reported.has(d));
  // A second line, so the note does not widen the picture.
  const grey = unreported.length > 0 ? [`${unreported.length} of ${days.length} days without a report are left out`] : [];
  const shown = days.filter((d) => reported.has(d));
  const x = { field: 'day', type: 'ordinal' as const, title: 'business day', scale: { domain: shown }, axis: { labelAngle: -60 } };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Mismatches by code, last ${days.length} business days`,
      subtitle: [
        total === 0
          ? `no mismatches in ${unreported.length > 0 ? 'the days reported' : 'these days'}`
          : 'orders per business day (an order with two codes counts under each)',
        ...grey,
      ],
    },
    width: 560,
    height: 220,
    layer: [
      {
        data: { values: counts.filter((c) => reported.has(c.day)).map((c) => ({ ...c })) },
        mark: { type: 'bar' },
        encoding: {
          x,
          y: { field: 'orders', type: 'quantitative', aggregate: 'sum', title: 'orders', axis: { format: ',d', tickMinStep: 1 } },
          color: { field: 'code', type: 'nominal', title: 'code', scale: { scheme: 'tableau10' } },
          tooltip: [{ field: 'day' }, { field: 'code' }, { field: 'orders', aggregate: 'sum', format: ',d' }],
        },
      },
    ],
    config: CONFIG,
  };
}

/**
 * Axis labels a person reads: "1.2 bn", "300 M", "45 k" (d3's SI "G" reads as giga, not billion).
 */
export const READABLE_AMOUNT_LABEL =
  "abs(datum.value) >= 1e9 ? format(datum.value / 1e9, '.3~r') + ' bn' : abs(datum.value) >= 1e6 ? format(datum.value / 1e6, '.3~r') + ' M' : abs(datum.value) >= 1e3 ? format(datum.value / 1e3, '.3~r') + ' k' : format(datum.value, ',~r')";

const STEPS = ['opening', 'payments in', 'payouts out', 'timing items', 'closing', 'drift'] as const;

/** Per currency (own scale each): opening, payments in, payouts out (negative), closing, drift. */
export function rollForwardChart(rows: readonly RollForwardBars[]): TopLevelSpec {
  const values = rows.flatMap((r) => {
    const v: Array<[string, string | null, number]> = [
      ['opening', r.opening, 1],
      ['payments in', r.payments_in, 1],
      ['payouts out', r.payouts_out, -1],
      ['timing items', r.timing_movement, 1],
      ['closing', r.closing, 1],
      ['drift', r.drift, 1],
    ];
    // The drift is named under the currency, above its panel: 1,250 on a 300 M axis is no visible
    // bar, and a label beside that bar ran past the chart's right edge.
    const decimals = isCurrency(r.currency) ? CURRENCY_DECIMALS[r.currency] : 2;
    const panel = r.drift === null ? r.currency : `${r.currency}|drift ${groupDigits(new Decimal(r.drift).toFixed(decimals))}`;
    return v.flatMap(([step, text, sign]) => (text === null ? [] : [{ panel, step, amount: sign * Number(text) }]));
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Roll-forward per currency',
      subtitle:
        values.length === 0
          ? 'no balance snapshots this day'
          : 'opening + payments in − payouts out + timing items = closing; drift is what orders do not explain',
    },
    data: { values },
    facet: {
      column: {
        field: 'panel',
        type: 'nominal',
        title: null,
        header: { labelFontSize: 13, labelFontWeight: 'bold', labelExpr: "split(datum.value, '|')", labelLineHeight: 17 },
      },
    },
    spec: {
      width: 170,
      height: 200,
      encoding: {
        x: { field: 'step', type: 'ordinal', sort: [...STEPS], title: null, axis: { labelAngle: -40 } },
        y: { field: 'amount', type: 'quantitative', title: null, axis: { labelExpr: READABLE_AMOUNT_LABEL } },
      },
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            color: {
              field: 'step',
              type: 'nominal',
              legend: null,
              scale: { domain: [...STEPS], range: ['#8a94a6', '#2e7d32', '#c62828', '#7b5ea7', '#4a6fa5', '#ef6c00'] },
            },
            tooltip: [{ field: 'panel', title: 'currency' }, { field: 'step' }, { field: 'amount', format: ',.2f' }],
          },
        },
      ],
    },
    resolve: { scale: { y: 'independent' } },
    config: CONFIG,
  };
}

/** Open items of earlier days by age (buckets in days, in order), stacked by why they are open. */
export function openItemsAgingChart(buckets: readonly string[], counts: readonly AgingCount[]): TopLevelSpec {
  const total = counts.reduce((s, c) => s + c.orders, 0);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Open items by age', subtitle: total === 0 ? 'no open items' : `${total.toLocaleString('en-US')} orders still open` },
    width: 560,
    height: 200,
    data: { values: counts.map((c) => ({ ...c })) },
    mark: { type: 'bar' },
    encoding: {
      x: { field: 'bucket', type: 'ordinal', title: 'age in days', scale: { domain: [...buckets] }, axis: { labelAngle: 0 } },
      y: { field: 'orders', type: 'quantitative', aggregate: 'sum', title: 'orders', axis: { format: ',d', tickMinStep: 1 } },
      color: {
        field: 'state',
        type: 'nominal',
        title: 'open because',
        scale: { domain: ['pending', 'unchecked', 'error', 'mismatch'], range: ['#4a6fa5', '#8a94a6', '#ef6c00', '#c62828'] },
      },
      tooltip: [{ field: 'bucket' }, { field: 'state' }, { field: 'orders', aggregate: 'sum', format: ',d' }],
    },
    config: CONFIG,
  };
}
