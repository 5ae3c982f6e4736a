import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chartDays, renderDayCharts, type DayChartData } from '../src/report/charts/day-charts.ts';
import { screenshotPath } from './helpers/browser.ts';

const DATA: DayChartData = {
  date: '2026-11-22',
  codeCounts: [
    { day: '2026-11-20', code: 'FEE', orders: 3 },
    { day: '2026-11-22', code: 'STALE', orders: 57 },
    { day: '2026-11-22', code: 'PAID_AMOUNT', orders: 49 },
    { day: '2026-11-22', code: 'UTR_MISSING', orders: 12 },
  ],
  reportedDays: chartDays('2026-11-22'),
  rollForward: [
    {
      currency: 'INR',
      opening: '4975000.00',
      payments_in: '12447508.62',
      payouts_out: '1000000.00',
      timing_movement: '0.00',
      closing: '16422508.62',
      drift: '0.00',
    },
    {
      currency: 'NGN',
      opening: '189700000.00',
      payments_in: '120144818.53',
      payouts_out: '6000000.00',
      timing_movement: '0.00',
      closing: '303846068.53',
      drift: '1250.00',
    },
  ],
  agingBuckets: ['0-1', '1-3', '3-7', '7+'],
  aging: [
    { bucket: '1-3', state: 'pending', orders: 14 },
    { bucket: '7+', state: 'mismatch', orders: 3 },
    { bucket: '0-1', state: 'unchecked', orders: 40 },
  ],
};

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('charts', () => {
  it('lists the 30 business days ending with the report day', () => {
    const days = chartDays('2026-03-01');
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-01-31');
    expect(days[29]).toBe('2026-03-01');
  });

  it('renders each chart as SVG with its data and as PNG, the same bytes every time', async () => {
    const a = await renderDayCharts(DATA);
    const b = await renderDayCharts(DATA);
    expect(a.map((c) => c.name)).toEqual(['mismatches-by-code', 'roll-forward', 'open-items-aging']);
    for (const [i, c] of a.entries()) {
      expect(c.svg).toMatch(/^<svg/);
      expect(c.svg).toContain('<path'); // bars drawn, not only axes
      expect(c.png.subarray(0, 4)).toEqual(PNG_MAGIC);
      expect(c.svg).toBe(b[i].svg);
      expect(c.png.equals(b[i].png)).toBe(true);
      fs.writeFileSync(screenshotPath(`chart-${c.name}.png`), c.png);
    }
    expect(a[0].svg).toContain('STALE');
    expect(a[1].svg).toContain('NGN');
    expect(a[2].svg).toContain('age in days');
  });

  it('leaves the days no report was written for off the axis and counts them, instead of drawing them as days without mismatches', async () => {
    const days = chartDays('2026-11-22');
    const reported = days.filter((d) => d !== '2026-11-20' && d !== '2026-11-21');
    const [withGaps] = await renderDayCharts({ ...DATA, reportedDays: reported });
    const [complete] = await renderDayCharts(DATA);
    expect(withGaps.svg).toContain('2 of 30 days without a report are left out');
    expect(withGaps.svg).not.toContain('2026-11-20');
    expect(complete.svg).not.toContain('without a report');
    const [nothing] = await renderDayCharts({ ...DATA, codeCounts: [], reportedDays: ['2026-11-22'] });
    expect(nothing.svg).toContain('no mismatches in the days reported');
    expect(nothing.svg).toContain('29 of 30 days without a report are left out');
  });

  it('labels the roll-forward axis as a person reads it (bn, M) and names the drift above its panel, inside the chart', async () => {
    const [, roll] = await renderDayCharts({
      ...DATA,
      rollForward: [
        {
          currency: 'NGN',
          opening: '300000000.00',
          payments_in: '1200000000.00',
          payouts_out: '900000000.00',
          timing_movement: null,
          closing: '600001250.00',
          drift: '1250',
        },
      ],
    });
    expect(roll.svg).toContain('>1 bn<');
    expect(roll.svg).toContain('>500 M<');
    expect(roll.svg).not.toMatch(/>\d+(\.\d+)?G</);
    // Under the currency, above its panel: a label beside the drift's bar ran past the chart's right edge.
    expect(roll.svg).toMatch(/>drift 1,250\.00</);
    const width = Number(/<svg[^>]* width="([\d.]+)"/.exec(roll.svg)![1]);
    const xs = [...roll.svg.matchAll(/<text[^>]*transform="translate\(([\d.]+),/g)].map((m) => Number(m[1]));
    for (const x of xs) expect(x).toBeLessThan(width);
  });

  it('says so when there is nothing to draw', async () => {
    const charts = await renderDayCharts({
      date: '2026-11-22',
      codeCounts: [],
      reportedDays: chartDays('2026-11-22'),
      rollForward: [],
      agingBuckets: ['0-1', '1-3'],
      aging: [],
    });
    expect(charts[0].svg).toContain('no mismatches in these days');
    expect(charts[1].svg).toContain('no balance snapshots this day');
    expect(charts[2].svg).toContain('no open items');
  });
});
