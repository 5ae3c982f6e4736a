import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { addUsers, FixedClock, PASSWORD } from './helpers/console.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import { serveConsole, type RunningConsole } from '../src/console/serve.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { silentLogger } from '../src/log/logger.ts';
import { caseHistory, getCase } from '../src/db/cases.ts';

// A finance analyst's queue at volume in real Chromium: 20,000 open cases; page to the end, assign and
// comment, resolve 50 selected, then the spreadsheet round trip (export, fill in, upload, confirm).
describe.skipIf(requiresBrowser('the cases queue at 20,000 in Chromium'))('the queue at volume in the browser', () => {
  let t: TestDatabase;
  let running: RunningConsole;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestDatabase('console_browser_queue');
    await seedOpenCases(t.db.knex, 20_000, new Date());
    await t.db.knex.raw('ANALYZE cases');
    await addUsers(t, new FixedClock(new Date()), { fiona: 'finance' });
    const ctx = { config: t.config, logger: silentLogger, db: t.db };
    running = await serveConsole({ ...ctx, ...dayJobs(ctx), port: 0, pollMs: 100, lockRetryMs: 100, lockWaitMs: 20_000 });
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await t?.drop();
  });

  it('pages to the last of 20,000, assigns and comments, resolves 50 selected, and round-trips a workbook', async () => {
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${running.url}/login`);
      await page.fill('input[name=name]', 'fiona');
      await page.fill('input[name=password]', PASSWORD);
      await Promise.all([page.waitForURL('**/days'), page.click('button[type=submit]')]);

      // The queue says its true total and pages to the very end.
      await page.goto(`${running.url}/cases`);
      expect(await page.textContent('h1')).toContain('(20,000)');
      expect(await page.textContent('p.paging')).toContain('showing 1–100 of 20,000');
      await Promise.all([page.waitForURL(/before=end/), page.click('p.paging a[rel=last]')]);
      expect(await page.textContent('p.paging')).toContain('showing 19,901–20,000 of 20,000');
      await page.screenshot({ path: screenshotPath('console-queue-last-page.png'), fullPage: true });

      // Assign the page's last case to me and comment on it, from its page.
      const lastId = (await page.locator('tbody tr td.num a').last().textContent())!.trim();
      await Promise.all([
        page.waitForURL(new RegExp(`/cases/${lastId}(\\?back=[^/]*)?$`)),
        page.locator('tbody tr td.num a').last().click(),
      ]);
      await page.selectOption(`form[action="/cases/${lastId}/assign"] select[name=assignee]`, 'fiona');
      await Promise.all([page.waitForLoadState('load'), page.click(`form[action="/cases/${lastId}/assign"] button`)]);
      await page.fill(`form[action="/cases/${lastId}/comment"] textarea[name=note]`, 'asked the provider, ticket 7781');
      await Promise.all([page.waitForLoadState('load'), page.click(`form[action="/cases/${lastId}/comment"] button`)]);
      expect(await page.textContent('main')).toContain('asked the provider, ticket 7781');
      await page.screenshot({ path: screenshotPath('console-case-assigned-commented.png'), fullPage: true });
      expect(await getCase(t.db.knex, lastId)).toMatchObject({ state: 'open', assignee: 'fiona' });
      await page.goto(`${running.url}/cases?assignee=me`);
      expect(await page.textContent('h1')).toContain('(1)');

      // Select 50 of the FEE cases and resolve them with one reason and note.
      await page.goto(`${running.url}/cases?code=FEE`);
      const boxes = page.locator('input[name=sel]');
      const chosen: string[] = [];
      for (let i = 0; i < 50; i++) {
        await boxes.nth(i).check();
        chosen.push((await boxes.nth(i).getAttribute('value'))!.split(':')[0]);
      }
      await page.selectOption('select[name=action]', 'resolve');
      await page.selectOption('fieldset select[name=reason]', 'adjusted');
      await page.fill('fieldset input[name=note]', 'fees booked in the ledger');
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Apply to selected")')]);
      expect(await page.textContent('h1')).toContain('50 cases resolved');
      await page.screenshot({ path: screenshotPath('console-bulk-resolved.png'), fullPage: true });
      for (const id of [chosen[0], chosen[49]]) expect((await getCase(t.db.knex, id))!.state).toBe('resolved');

      // The round trip: export the STATUS cases, fill in three resolutions and one unknown reason, upload, confirm.
      await page.goto(`${running.url}/cases?code=STATUS`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('a:has-text("as a workbook")')]);
      const file = (await download.path())!;
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.readFile(file);
      const sheet = wb.getWorksheet('Cases')!;
      expect(sheet.actualRowCount).toBe(1 + 6_667);
      const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
      const col = (label: string) => header.indexOf(label) + 1;
      const fills: Array<[number, string, string]> = [
        [2, 'provider-corrected', 'provider fixed the status'],
        [3, 'duplicate', 'same as the row above'],
        [4, 'Written off', 'below the limit'],
        [5, 'fixed it', 'an unknown reason'],
      ];
      const filled = fills.map(([r, reason, note]) => {
        const row = sheet.getRow(r);
        row.getCell(col('resolution reason')).value = reason;
        row.getCell(col('resolution note')).value = note;
        return String(row.getCell(col('case id')).value);
      });
      const edited = screenshotPath('cases-filled-in.xlsx');
      await wb.xlsx.writeFile(edited);
      await page.goto(`${running.url}/cases`);
      await Promise.all([page.waitForURL('**/cases/import'), page.click('a:has-text("upload a filled-in workbook")')]);
      await page.setInputFiles('input[type=file]', edited);
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Preview")')]);
      expect(await page.textContent('h1')).toContain('Preview: 3 cases to resolve');
      expect(await page.textContent('main')).toContain('unknown reason "fixed it"');
      await page.screenshot({ path: screenshotPath('console-import-preview.png'), fullPage: true });
      expect((await getCase(t.db.knex, filled[0]))!.state).toBe('open');
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Resolve 3 cases")')]);
      expect(await page.textContent('h1')).toContain('3 cases resolved');
      await page.screenshot({ path: screenshotPath('console-import-done.png'), fullPage: true });
      expect(await getCase(t.db.knex, filled[2])).toMatchObject({ state: 'resolved', resolution: 'written-off' });
      expect((await caseHistory(t.db.knex, filled[0])).at(-1)).toMatchObject({ actor: 'console:fiona', note: 'provider fixed the status' });
      expect((await getCase(t.db.knex, filled[3]))!.state).toBe('open');
      fs.rmSync(edited, { force: true });
    } finally {
      await context.close();
    }
  }, 300_000);
});
