import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { buildReportEmail } from '../src/report/email/content.ts';

const SEED = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'report-day.sql'), 'utf8');

/** The e-mail of a real version as a reader sees it in a 700 px reading pane. */
describe('report e-mail in a 700 px reading pane', () => {
  let t: TestDatabase;
  let directory: string;

  beforeAll(async () => {
    const engine = availableEngines[0];
    t = await createTestDatabase(`report_email_browser_${engine}`, { engine });
    await t.db.engine.runScript(t.db.knex, `SET search_path TO ${t.db.schema};\n${SEED}`);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-email-browser-'));
    const r = await writeReports(t.db, {
      date: '2024-05-01',
      timezone: 'Asia/Kolkata',
      reportDir,
      now: new Date('2024-05-02T02:00:00Z'),
      currencies: ['INR', 'NGN', 'IDR'],
    });
    directory = r.directory;
  });
  afterAll(async () => {
    await t?.drop();
  });

  it.skipIf(requiresBrowser('the e-mail at 700 px in Chromium'))(
    'never scrolls sideways at 700 px, and shows the money per currency before the files',
    async () => {
      const mail = buildReportEmail({ business_date: '2024-05-01', version: 1, directory });
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ viewport: { width: 700, height: 900 } });
        // The inline charts (cid:) as the files they are, so the page lays out with them.
        const html = mail.html.replace(
          /cid:([a-z-]+)@payrecon/g,
          (_, name: string) => `data:image/png;base64,${fs.readFileSync(path.join(directory, `chart-${name}.png`)).toString('base64')}`,
        );
        await page.setContent(html);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        await page.screenshot({ path: screenshotPath('email-700.png'), fullPage: true });
        expect(width).toBeLessThanOrEqual(700);
        const text = (await page.textContent('body')) ?? '';
        expect(text.indexOf('Money per currency')).toBeGreaterThanOrEqual(0);
        expect(text.indexOf('Money per currency')).toBeLessThan(text.indexOf('Attached'));
        // The money table itself fits: its columns are read without scrolling.
        const money = await page.$eval('h3 + div table', (table) => table.getBoundingClientRect().right);
        expect(money).toBeLessThanOrEqual(700);
      } finally {
        await browser.close();
      }
    },
  );
});
