import { DateTime } from 'luxon';
import { renderPng, renderSvg } from './render.ts';
import {
  mismatchesByCodeChart,
  openItemsAgingChart,
  rollForwardChart,
  type AgingCount,
  type CodeCount,
  type RollForwardBars,
} from './specs.ts';

/** Business days the mismatch chart spans, the report's day included. */
export const CHART_DAYS = 30;

export interface DayChartData {
  /** The report's business day, YYYY-MM-DD. */
  date: string;
  codeCounts: readonly CodeCount[];
  /** Days of the chart with a report version (the report's own day included); the others had none. */
  reportedDays: readonly string[];
  rollForward: readonly RollForwardBars[];
  /** Aging buckets in order (open_items.csv's), and the open items counted into them. */
  agingBuckets: readonly string[];
  aging: readonly AgingCount[];
}

export interface RenderedChart {
  /** File stem and content id: `mismatches-by-code`. */
  name: string;
  title: string;
  svg: string;
  png: Buffer;
}

/** The CHART_DAYS business days ending with `date`, oldest first. */
export function chartDays(date: string, count = CHART_DAYS): string[] {
  const last = DateTime.fromISO(date, { zone: 'utc' });
  return Array.from({ length: count }, (_, i) => last.minus({ days: count - 1 - i }).toISODate()!);
}

/** The report's charts, each as SVG (for report.html) and PNG (for the e-mail). */
export async function renderDayCharts(data: DayChartData): Promise<RenderedChart[]> {
  const specs = [
    {
      name: 'mismatches-by-code',
      title: 'Mismatches by code',
      spec: mismatchesByCodeChart(chartDays(data.date), data.codeCounts, data.reportedDays),
    },
    { name: 'roll-forward', title: 'Roll-forward per currency', spec: rollForwardChart(data.rollForward) },
    { name: 'open-items-aging', title: 'Open items by age', spec: openItemsAgingChart(data.agingBuckets, data.aging) },
  ];
  const out: RenderedChart[] = [];
  for (const s of specs) {
    const svg = await renderSvg(s.spec);
    out.push({ name: s.name, title: s.title, svg, png: await renderPng(svg) });
  }
  return out;
}
