import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDayCharts } from '../src/report/charts/day-charts.ts';
import { groupDigits } from '../src/money/group-digits.ts';
import { timeFormatter } from '../src/tabular/format.ts';
import { reportHtml, type ReportHtmlInput } from '../src/report/html/report-html.ts';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';

const formatTime = timeFormatter('Asia/Kolkata');

async function input(): Promise<ReportHtmlInput> {
  return {
    date: '2026-11-22',
    timezone: 'Asia/Kolkata',
    version: 2,
    createdAt: '2026-11-23T06:00:00.000+05:30',
    headline: '121 of 3,000 orders need a look: 121 mismatches; NGN drift 1,250.00',
    partial: false,
    charts: await renderDayCharts({
      date: '2026-11-22',
      codeCounts: [{ day: '2026-11-22', code: 'STALE', orders: 57 }],
      reportedDays: ['2026-11-22'],
      rollForward: [
        {
          currency: 'NGN',
          opening: '189700000.00',
          payments_in: '1.00',
          payouts_out: '2.00',
          timing_movement: '0.00',
          closing: '189699999.00',
          drift: '0.00',
        },
      ],
      agingBuckets: ['0-1', '1-3', '3-7', '7+'],
      aging: [{ bucket: '1-3', state: 'pending', orders: 4 }],
    }),
    tables: [
      {
        name: 'summary_orders',
        title: 'Orders by currency and direction',
        columns: [
          { name: 'currency', kind: 'text' },
          { name: 'orders', kind: 'count' },
          { name: 'gross', kind: 'amount' },
        ],
        rows: [
          ['NGN', 1800, '123456789.5'],
          ['total NGN', 1800, '123456789.5'],
        ],
        notes: ['<b>not markup</b>'],
      },
    ],
    mismatches: {
      name: 'mismatches',
      title: 'Mismatches',
      columns: [
        { name: 'merchant_ref', kind: 'text' },
        { name: 'currency', kind: 'text' },
        { name: 'difference', kind: 'amount' },
      ],
      rows: [['<script>alert(1)</script>', 'NGN', '-922752.47']],
    },
    mismatchCount: 121,
    versions: [
      { version: 1, createdAt: '2026-11-22T23:00:00.000+05:30', headline: 'first' },
      { version: 2, createdAt: '2026-11-23T06:00:00.000+05:30', headline: 'second' },
    ],
    files: [{ name: 'items.csv', purpose: 'every order of the day', rows: 3000 }],
  };
}

describe('report.html', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-html-'));
    file = path.join(dir, 'report.html');
    fs.writeFileSync(file, reportHtml(await input(), formatTime));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('groups digits without touching a float', () => {
    expect(groupDigits('-1234567.50')).toBe('-1,234,567.50');
    expect(groupDigits('123456789012345.67')).toBe('123,456,789,012,345.67');
    expect(groupDigits('999')).toBe('999');
  });

  it('is self-contained and escapes every text it prints', () => {
    const html = fs.readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;not markup&lt;/b&gt;');
    expect(html).toContain('123,456,789.50');
    expect(html).toContain('-922,752.47');
    expect(html).toMatch(/text-align:right[^>]*>123,456,789\.50/);
  });

  it.skipIf(requiresBrowser('report.html renders its charts in Chromium'))(
    'renders every chart in Chromium with no console errors',
    async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const errors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(pathToFileURL(file).href);
        // Data marks only: Vega draws each bar as a path in a `g.mark-rect.role-mark` group (axes,
        // grid lines and legend symbols are paths too, in role-axis and role-legend groups).
        const charts = await page.$$eval('figure[data-chart]', (figs) =>
          figs.map((f) => {
            const svg = f.querySelector('svg');
            const box = svg?.getBoundingClientRect();
            return {
              name: f.getAttribute('data-chart'),
              bars: svg?.querySelectorAll('g.mark-rect.role-mark path').length ?? 0,
              width: box?.width ?? 0,
              height: box?.height ?? 0,
            };
          }),
        );
        // One bar for the day's STALE count, one per roll-forward step of NGN (the six, zero ones included),
        // one for the aging bucket with orders.
        expect(charts.map((c) => [c.name, c.bars])).toEqual([
          ['mismatches-by-code', 1],
          ['roll-forward', 6],
          ['open-items-aging', 1],
        ]);
        for (const c of charts) {
          expect(c.width).toBeGreaterThan(100);
          expect(c.height).toBeGreaterThan(100);
        }
        expect(errors).toEqual([]);
        await page.screenshot({ path: screenshotPath('report-html-unit.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    },
  );
});
