import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import type { Browser } from 'playwright-core';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';
import { createWorld, type World } from './helpers/world.ts';
import { addUsers, FixedClock, PASSWORD } from './helpers/console.ts';
import { MailSink, freePort } from './helpers/mail-sink.ts';
import { waitFor } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { serveConsole, type RunningConsole } from '../src/console/serve.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { silentLogger } from '../src/log/logger.ts';

// A finance user in real Chromium: find an order by a piece of its ref, then rerun a day, see what changed and send it to accounting.
describe.skipIf(requiresBrowser('console search and rerun-and-send in Chromium'))('console search and reruns that report back', () => {
  let world: World;
  let reportDir: string;
  let running: RunningConsole;
  let browser: Browser;
  let sink: MailSink;
  let payout: { id: string; merchant_ref: string };
  const today = DateTime.utc().toISODate()!;

  beforeAll(async () => {
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-console-search-'));
    const port = await freePort();
    sink = new MailSink();
    await sink.listen(port);
    world = await createWorld('console_browser_search', {
      env: { REPORT_DIR: reportDir, SMTP_URL: `smtp://127.0.0.1:${port}`, REPORT_EMAIL_TO: 'accounting@merchant.example' },
    });
    await seedMerchant(world.t.db.knex, world.client, { payments: 12, payouts: 8, seed: 5 });
    await world.control.advanceClock(2_000);
    const ctx = { config: world.config, logger: silentLogger, db: world.t.db };
    const jobs = dayJobs(ctx);
    await jobs.reconcileDay(today, new AbortController().signal);
    await jobs.reportDay(today);
    // Since the night's report, one payout's fee was booked differently: the rerun finds a FEE mismatch.
    payout = await world.t.db.knex('payout_orders').orderBy('id').first();
    await world.t.db
      .knex('payout_orders')
      .where({ id: payout.id })
      .update({ fee: world.t.db.knex.raw('fee + 1') });
    await addUsers(world.t, new FixedClock(new Date()), { fiona: 'finance' });
    running = await serveConsole({ ...ctx, ...jobs, port: 0, pollMs: 100, lockRetryMs: 100, lockWaitMs: 20_000 });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await world?.close();
    await sink?.close();
    fs.rmSync(reportDir, { recursive: true, force: true });
  });

  it('searches a piece of a ref and lands on the order; reruns the day, sees what changed, sends it once', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${running.url}/login`);
      await page.fill('input[name=name]', 'fiona');
      await page.fill('input[name=password]', PASSWORD);
      await Promise.all([page.waitForURL('**/days'), page.click('button[type=submit]')]);

      // A leading piece of the ref, in upper case, typed into the box every page carries.
      const piece = payout.merchant_ref.slice(0, 10).toUpperCase();
      await page.fill('header input[name=ref]', piece);
      await Promise.all([page.waitForURL(`**/orders/payout/${payout.id}`), page.press('header input[name=ref]', 'Enter')]);
      expect(await page.textContent('h1')).toContain(payout.merchant_ref);
      expect(await page.textContent('main')).toContain('Report versions');
      await page.screenshot({ path: screenshotPath('console-order.png'), fullPage: true });
      expect((await page.request.get(`${running.url}/favicon.ico`)).status()).toBe(200);

      await page.goto(`${running.url}/days/${today}`);
      await Promise.all([page.waitForURL(/\/reruns\/\d+$/), page.click('button:has-text("Rerun this day")')]);
      await page.waitForFunction(
        () => /done: reconciled and reported|failed/.test(document.querySelector('#step')?.textContent ?? ''),
        null,
        {
          timeout: 60_000,
          polling: 200,
        },
      );
      expect(await page.textContent('#step')).toContain('done: reconciled and reported');
      expect(await page.textContent('main')).toContain('Report v2');
      // First checks said "resolved" (pending, then final); the rerun's say "matched", and the payout's fee differs.
      expect(await page.textContent('#changed')).toContain('20 orders changed');
      expect(await page.textContent(`tr:has(a[href="/orders/payout/${payout.id}"])`)).toContain('mismatch FEE');
      expect(await page.getAttribute(`a[href="/orders/payout/${payout.id}"]`, 'href')).toBeTruthy();
      await page.screenshot({ path: screenshotPath('console-rerun-outcome.png'), fullPage: true });

      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Send v2 to accounting")')]);
      expect(await page.textContent('#sent')).toContain('v2 was sent to accounting.');
      await waitFor(async () => sink.received.length === 1);
      expect(sink.received[0].subject).toContain(today);
      await page.screenshot({ path: screenshotPath('console-rerun-sent.png'), fullPage: true });
    } finally {
      await context.close();
    }
  }, 120_000);
});
