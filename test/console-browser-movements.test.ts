/**
 * Issue 38 in real Chromium at 1,280 px: a finance user records a top-up on the movements page, sees
 * no way to approve it herself; a second finance user approves it from the list. Both pages fit the
 * window (no sideways scrolling), and the movement's audit trail holds both steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';
import { createWorld, type World } from './helpers/world.ts';
import { addUsers, FixedClock, PASSWORD } from './helpers/console.ts';
import { serveConsole, type RunningConsole } from '../src/console/serve.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { silentLogger } from '../src/log/logger.ts';
import { movementEvents, movementsByReference } from '../src/db/movements.ts';

describe.skipIf(requiresBrowser('the movements page at 1,280 px in Chromium'))('the movements page at 1,280 px', () => {
  let world: World;
  let running: RunningConsole;
  let browser: Browser;

  beforeAll(async () => {
    world = await createWorld('console_browser_movements');
    await addUsers(world.t, new FixedClock(new Date()), { fiona: 'finance', frank: 'finance' });
    const ctx = { config: world.t.config, logger: silentLogger, db: world.t.db };
    running = await serveConsole({ ...ctx, ...dayJobs(ctx), port: 0, pollMs: 100, lockRetryMs: 100, lockWaitMs: 20_000 });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await world?.close();
  });

  async function signIn(name: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${running.url}/login`);
    await page.fill('input[name=name]', name);
    await page.fill('input[name=password]', PASSWORD);
    await Promise.all([page.waitForURL('**/days'), page.click('button[type=submit]')]);
    return page;
  }

  const fits = (page: Page) => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, window: window.innerWidth }));

  it('one finance user records, the other approves; both steps audited', async () => {
    const fiona = await signIn('fiona');
    try {
      await Promise.all([fiona.waitForURL('**/movements'), fiona.click('nav a:has-text("Movements")')]);
      await fiona.fill('input[name=reference]', 'TOPUP-BROWSER-1');
      await fiona.selectOption('select[name=kind]', 'top_up');
      await fiona.selectOption('select[name=currency]', 'NGN');
      await fiona.selectOption('select[name=direction]', 'in');
      await fiona.fill('input[name=amount]', '1500000.00');
      await fiona.fill('input[name=occurred_at]', '2026-11-27T10:15:00+01:00');
      await fiona.fill('input[name=usdt_amount]', '1000');
      await fiona.fill('input[name=note]', 'prefund payouts');
      const f = await fits(fiona);
      expect(f.scroll, JSON.stringify(f)).toBeLessThanOrEqual(f.window);
      await fiona.screenshot({ path: screenshotPath('console-movements-record-1280.png'), fullPage: true });
      await Promise.all([fiona.waitForURL(/\/movements\/\d+$/), fiona.click('form.record-movement button[type=submit]')]);
      expect(await fiona.textContent('h1')).toContain('TOPUP-BROWSER-1');
      expect(await fiona.textContent('main')).toContain('another finance user approves it');
      expect(await fiona.locator('form[action$="/approve"]').count()).toBe(0);
    } finally {
      await fiona.context().close();
    }

    const frank = await signIn('frank');
    try {
      await frank.goto(`${running.url}/movements`);
      const f = await fits(frank);
      expect(f.scroll, JSON.stringify(f)).toBeLessThanOrEqual(f.window);
      expect(await frank.textContent('.movement-counts')).toMatch(/1\s+recorded\s+·\s+1\s+pending approval/);
      await Promise.all([frank.waitForURL(/\/movements\/\d+/), frank.locator('form[action$="/approve"] button').first().click()]);
      expect(await frank.textContent('main')).toMatch(/approved by frank/);
      await frank.screenshot({ path: screenshotPath('console-movement-approved-1280.png'), fullPage: true });
    } finally {
      await frank.context().close();
    }

    const m = (await movementsByReference(world.t.db.knex, ['TOPUP-BROWSER-1'])).get('TOPUP-BROWSER-1')!;
    expect([m.recordedBy, m.approvedBy, m.source]).toEqual(['fiona', 'frank', 'console']);
    expect((await movementEvents(world.t.db.knex, m.id)).map((e) => [e.action, e.actor])).toEqual([
      ['recorded', 'fiona'],
      ['approved', 'frank'],
    ]);
  });
});
