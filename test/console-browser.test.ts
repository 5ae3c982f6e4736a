import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import type { Browser } from 'playwright-core';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';
import { createWorld, type World } from './helpers/world.ts';
import { addUsers, FixedClock, PASSWORD } from './helpers/console.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { serveConsole, type RunningConsole } from '../src/console/serve.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { silentLogger } from '../src/log/logger.ts';

// A finance user's afternoon in real Chromium: sign in, open a day and download its file, resolve a case, rerun the day, sign out.
describe.skipIf(requiresBrowser('the console in Chromium as a finance user'))('console in the browser', () => {
  let world: World;
  let reportDir: string;
  let running: RunningConsole;
  let browser: Browser;
  const today = DateTime.utc().toISODate()!;

  beforeAll(async () => {
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-console-browser-'));
    world = await createWorld('console_browser', { env: { REPORT_DIR: reportDir } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 30, payouts: 20, seed: 11 });
    await world.control.advanceClock(2_000);
    const ctx = { config: world.config, logger: silentLogger, db: world.t.db };
    // One payout's fee recorded differently from the provider's: reconcile opens a FEE case for it.
    const payout = await world.t.db.knex('payout_orders').orderBy('id').first();
    await world.t.db
      .knex('payout_orders')
      .where({ id: payout.id })
      .update({ fee: world.t.db.knex.raw('fee + 1') });
    const jobs = dayJobs(ctx);
    // The night already happened: the day is reconciled and has its first report version.
    await jobs.reconcileDay(today, new AbortController().signal);
    await jobs.reportDay(today);
    await addUsers(world.t, new FixedClock(new Date()), { fiona: 'finance' });
    running = await serveConsole({ ...ctx, ...jobs, port: 0, pollMs: 100, lockRetryMs: 100, lockWaitMs: 20_000 });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await world?.close();
    fs.rmSync(reportDir, { recursive: true, force: true });
  });

  it('signs in, opens a day, downloads its report, resolves a case, reruns the day and sees it finish, signs out', async () => {
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${running.url}/days`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.fill('input[name=name]', 'fiona');
      await page.fill('input[name=password]', PASSWORD);
      await page.screenshot({ path: screenshotPath('console-login.png') });
      await Promise.all([page.waitForURL('**/days'), page.click('button[type=submit]')]);
      expect(await page.textContent('header .who')).toContain('fiona (finance)');
      await page.screenshot({ path: screenshotPath('console-days.png'), fullPage: true });

      await Promise.all([page.waitForURL(`**/days/${today}`), page.click(`a[href="/days/${today}"]`)]);
      expect(await page.textContent('.headline')).toBeTruthy();
      await page.screenshot({ path: screenshotPath('console-day.png'), fullPage: true });

      // Every report version carries the workbook: download it by the version's id.
      const links = await page.$$eval('a[download]', (as) => as.map((a) => a.getAttribute('href') ?? ''));
      const workbook = links.find((h) => h.endsWith('/reconciliation.xlsx'));
      expect(workbook).toMatch(/^\/reports\/\d+\/files\/reconciliation\.xlsx$/);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`a[href="${workbook}"]`)]);
      const saved = screenshotPath(`console-download-${download.suggestedFilename()}`);
      await download.saveAs(saved);
      // An xlsx is a zip: it starts with PK.
      expect(fs.readFileSync(saved).subarray(0, 2).toString()).toBe('PK');

      // A case: the FEE finding injected above, resolved with a reason and a note.
      await page.goto(`${running.url}/cases?code=FEE`);
      await page.screenshot({ path: screenshotPath('console-cases.png'), fullPage: true });
      await Promise.all([page.waitForURL(/\/cases\/\d+(\?back=[^/]*)?$/), page.click('table a[href^="/cases/"]')]);
      await page.selectOption('select[name=reason]', 'adjusted');
      await page.fill('form[action$="/resolve"] textarea[name=note]', 'fee re-booked as the provider charged it');
      await Promise.all([page.waitForLoadState('load'), page.click('form[action$="/resolve"] button[type=submit]')]);
      expect(await page.textContent('h1')).toContain('resolved');
      expect(await page.textContent('body')).toContain('fee re-booked as the provider charged it');
      await page.screenshot({ path: screenshotPath('console-case.png'), fullPage: true });

      await page.goto(`${running.url}/days/${today}`);
      await Promise.all([page.waitForURL(/\/reruns\/\d+$/), page.click('button:has-text("Rerun this day")')]);
      // The page reloads itself (no JavaScript needed) until the rerun ends.
      await page.waitForFunction(
        () => /done: reconciled and reported|failed/.test(document.querySelector('#step')?.textContent ?? ''),
        null,
        {
          timeout: 60_000,
          polling: 200,
        },
      );
      expect(await page.textContent('#step')).toContain('done: reconciled and reported');
      await page.screenshot({ path: screenshotPath('console-rerun.png'), fullPage: true });

      await page.goto(`${running.url}/jobs`);
      expect(await page.textContent('h1')).toBe('Jobs');
      await page.screenshot({ path: screenshotPath('console-jobs.png'), fullPage: true });

      await Promise.all([page.waitForURL('**/login'), page.click('button:has-text("Log out")')]);
      await page.goto(`${running.url}/days`);
      expect(new URL(page.url()).pathname).toBe('/login');
    } finally {
      await context.close();
    }
  }, 120_000);
});
