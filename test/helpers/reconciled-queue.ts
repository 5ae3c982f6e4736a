/**
 * A day of open cases made through the product (issue 39), not by SQL inserts: the merchant's orders
 * imported from CSV (`payrecon import`), the provider's copy adopted by the sandbox from a second CSV
 * differing on about one order in five (`payrecon sandbox --payments`), then reconciled. Then the
 * queue at 1,280 px in Chromium: the money columns measured in view, sort by risk, bulk by filter.
 * Used by test/console-browser-reconciled.test.ts (a small day) and bench/queue-browser.ts (20,000 cases).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Browser } from 'playwright-core';
import type { World } from './world.ts';
import { reconcileWorld } from './reconcile-run.ts';
import { PASSWORD } from './console.ts';
import { importOrders } from '../../src/import/import.ts';
import { adoptOrderCsv } from '../../src/sandbox/adopt-csv.ts';
import { createStatusMapper } from '../../src/domain/status.ts';
import { insertRateSnapshot } from '../../src/db/snapshots.ts';

const CURRENCIES = [
  { currency: 'INR', method: 'UPI', rate: '80', base: 1000 },
  { currency: 'NGN', method: 'BANK', rate: '1600', base: 20000 },
  { currency: 'IDR', method: 'QRIS', rate: '16000', base: 150000 },
] as const;
const HEADER = 'merchant_ref,transaction_ref,currency,method,amount,paid_amount,fee,status,created_at\n';
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const refOf = (kind: 'm' | 't', i: number) => `${kind === 'm' ? '6a0c1e6e' : '7b1d2f7f'}-0000-4000-8000-${hex(i, 12)}`;

export interface ReconciledDay {
  orders: number;
  /** Orders the provider's copy differs on. */
  differing: number;
  cases: number;
  /** The merchant ref of the order with the most at stake (in USDT), made to be the largest. */
  largestRef: string;
  seconds: { import: number; adopt: number; reconcile: number };
}

/**
 * `orders` payments of one day: every fifth one differs at the provider, in turn by its amount, its
 * paid amount, its fee and its status; one IDR order is 2,000,000 short, more at stake than any other.
 */
export async function reconcileADay(world: World, orders: number, now: Date): Promise<ReconciledDay> {
  const k = world.t.db.knex;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-reconciled-queue-'));
  try {
    for (const c of CURRENCIES)
      await insertRateSnapshot(k, {
        runId: null,
        currency: c.currency,
        deposit: c.rate,
        withdraw: c.rate,
        takenAt: new Date(now.getTime() - 86_400_000),
        flags: [],
      });
    const local: string[] = [HEADER];
    const provider: string[] = [HEADER];
    let differing = 0;
    // Order 8 is IDR (8 % 3 = 2) and not one of the every-fifth: 5,000,000 paid 3,000,000 (125 USDT), far
    // more than any other difference (at most 89 units of a currency, about 1.1 USDT).
    const largestIndex = 8;
    // Whole units, integer arithmetic: no amount passes through a binary fraction.
    const money = (units: number) => `${units}.00`;
    for (let i = 1; i <= orders; i++) {
      const c = CURRENCIES[i % 3];
      const units = i === largestIndex ? 5_000_000 : c.base + (i % 997);
      const feeUnits = c.base / 100 + (i % 13);
      const createdAt = new Date(now.getTime() - 3_600_000 - (i % 3600) * 1000).toISOString();
      const row = (a: number, paid: number | null, f: number, status: string) =>
        `${refOf('m', i)},${refOf('t', i)},${c.currency},${c.method},${money(a)},${paid === null ? '' : money(paid)},${money(f)},${status},${createdAt}\n`;
      local.push(row(units, units, feeUnits, 'Success'));
      if (i === largestIndex) {
        differing++;
        provider.push(row(units, 3_000_000, feeUnits, 'Success'));
        continue;
      }
      if (i % 5 !== 0) {
        provider.push(row(units, units, feeUnits, 'Success'));
        continue;
      }
      differing++;
      // The differences vary with i, so the risk order is not the import order.
      const delta = (i % 89) + 1;
      const kind = (i / 5) % 4;
      if (kind === 0) provider.push(row(units - delta, units - delta, feeUnits, 'Success'));
      else if (kind === 1) provider.push(row(units, units - delta, feeUnits, 'Success'));
      else if (kind === 2) provider.push(row(units, units, feeUnits + delta, 'Success'));
      else provider.push(row(units, null, feeUnits, 'Failed'));
    }
    const localFile = path.join(dir, 'payments.csv');
    const providerFile = path.join(dir, 'provider-payments.csv');
    fs.writeFileSync(localFile, local.join(''));
    fs.writeFileSync(providerFile, provider.join(''));
    const statusOf = createStatusMapper();
    const t0 = Date.now();
    const imported = await importOrders(k, Readable.from([fs.readFileSync(localFile)]), { kind: 'payment', statusOf });
    if (imported.inserted !== orders) throw new Error(`import: ${JSON.stringify(imported.rejected.slice(0, 3))}`);
    const t1 = Date.now();
    const adopted = await adoptOrderCsv(world.sandbox.state, world.config.PROVIDER_MERCHANT_ID, providerFile, {
      kind: 'payment',
      statusOf,
    });
    if (adopted.adopted !== orders) throw new Error(`adopt: ${JSON.stringify(adopted.rejected.slice(0, 3))}`);
    const t2 = Date.now();
    // Every order of the day(s) they were created on (UTC), checked once, as `payrecon reconcile --from --to`.
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const run = await reconcileWorld(world, {
      request: { from: day(new Date(now.getTime() - 2 * 3_600_000)), to: day(now) },
      clock: () => now,
      concurrency: 8,
      batchSize: 500,
    });
    if (run.status !== 'completed') throw new Error(`reconcile: ${JSON.stringify(run).slice(0, 400)}`);
    const t3 = Date.now();
    await k.raw('ANALYZE cases');
    const [{ n }] = await k('cases').whereIn('state', ['open', 'acknowledged']).count({ n: '*' });
    return {
      orders,
      differing,
      cases: Number(n),
      largestRef: refOf('m', largestIndex),
      seconds: { import: (t1 - t0) / 1000, adopt: (t2 - t1) / 1000, reconcile: (t3 - t2) / 1000 },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface QueueMeasure {
  heading: string;
  /** The table's box and its content's width: equal when nothing scrolls sideways. */
  tableWrap: { scrollWidth: number; clientWidth: number };
  windowWidth: number;
  /** The right edge of each money column's heading, in px from the window's left. */
  columns: Record<string, number>;
  firstRow: { ref: string; text: string };
  bulk: { filter: string; matched: number; resolved: number; oneEventEach: boolean };
}

const MONEY_COLUMNS = ['cur', 'difference', 'at risk (USDT)', 'open for', 'SLA', 'assignee'];

/**
 * As a finance analyst at 1,280 px: the queue by risk (measured, screenshot), then one filter's cases
 * resolved in bulk (preview, confirm). `checkEvents` reads the audit: how many resolve events each case got.
 */
export async function workQueueAt1280(
  browser: Browser,
  consoleUrl: string,
  opts: { user: string; screenshot: string; filter: string; eventsPerCase: () => Promise<number[]> },
): Promise<QueueMeasure> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await page.goto(`${consoleUrl}/login`);
    await page.fill('input[name=name]', opts.user);
    await page.fill('input[name=password]', PASSWORD);
    await Promise.all([page.waitForURL('**/days'), page.click('button[type=submit]')]);

    await page.goto(`${consoleUrl}/cases?sort=risk`);
    const fit = await page.evaluate((labels) => {
      const wrap = document.querySelector('.table-wrap') as HTMLElement;
      const heads = [...document.querySelectorAll('table.queue thead th')];
      const columns: Record<string, number> = {};
      for (const label of labels) {
        const th = heads.find((h) => h.textContent!.trim() === label);
        columns[label] = th ? th.getBoundingClientRect().right : Number.POSITIVE_INFINITY;
      }
      return { tableWrap: { scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth }, windowWidth: window.innerWidth, columns };
    }, MONEY_COLUMNS);
    await page.screenshot({ path: opts.screenshot });
    const first = page.locator('table.queue tbody tr').first();
    const firstRow = {
      ref: (await first.locator('td.ref').textContent())!.trim(),
      text: (await first.textContent())!.replace(/\s+/g, ' '),
    };
    const heading = (await page.textContent('h1'))!.replace(/\s+/g, ' ');

    await page.goto(`${consoleUrl}/cases?${opts.filter}`);
    const matched = Number((await page.textContent('h1'))!.replace(/\D/g, ''));
    await page.selectOption('fieldset.bulk select[name=action]', 'resolve');
    await page.selectOption('fieldset.bulk select[name=reason]', 'adjusted');
    await page.fill('fieldset.bulk input[name=note]', 'booked after the provider confirmed');
    await Promise.all([
      page.waitForURL('**/cases/bulk/preview'),
      page.click(`button:has-text("Preview all ${matched.toLocaleString('en-US')} matching")`),
    ]);
    await Promise.all([page.waitForURL('**/cases/bulk/confirm'), page.click('button:has-text("Confirm")')]);
    const resolved = Number(/([\d,]+) cases? resolved/.exec((await page.textContent('h1'))!)?.[1].replace(/,/g, '') ?? -1);
    const events = await opts.eventsPerCase();
    return {
      heading,
      ...fit,
      firstRow,
      bulk: { filter: opts.filter, matched, resolved, oneEventEach: events.length === resolved && events.every((n) => n === 1) },
    };
  } finally {
    await context.close();
  }
}
