import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, requiresBrowser, screenshotPath } from './helpers/browser.ts';

// Proves the browser harness itself on this machine: a page served on loopback, rendered, read back.
describe('browser harness', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>harness</title><h1 id="h">payrecon</h1>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.skipIf(requiresBrowser('the browser harness renders a local page'))('renders a local page in Chromium', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(url);
      expect(await page.textContent('#h')).toBe('payrecon');
      await page.screenshot({ path: screenshotPath('browser-harness.png') });
    } finally {
      await browser.close();
    }
  });
});
