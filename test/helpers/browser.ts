/**
 * Real Chromium for browser tests: Debian's `chromium` package driven by playwright-core (no browser
 * download is possible here). Where no browser is installed the tests skip with the reason printed,
 * like the Postgres-only tests, and the run's end counts them; under CI=true the run fails instead.
 *
 *   it.skipIf(requiresBrowser('report.html renders its charts'))('...', async () => {
 *     const browser = await launchBrowser();
 *     ...
 *   });
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { skipping } from './skips.ts';

/** CHROMIUM_PATH overrides; Debian's package installs /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const hasBrowser: boolean = fs.existsSync(CHROMIUM_PATH);

/** For it.skipIf(): true (skip) without a browser, printing why once per reason and counting it (helpers/skips.ts); under CI=true, throws. */
export function requiresBrowser(reason: string): boolean {
  if (hasBrowser) return false;
  return skipping(`no Chromium at ${CHROMIUM_PATH}; apt-get install chromium, or set CHROMIUM_PATH`, reason);
}

/**
 * Headless Chromium with the flags this closed network needs: without the background-networking
 * ones Chromium keeps trying to reach Google's hosts and its connections are refused.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where tests save screenshots for a person to look at: test-output/<name>, kept out of git. */
export function screenshotPath(name: string): string {
  const dir = path.resolve('test-output');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
