// Issue 39's browser check at full size: 100,000 orders imported, the provider's copy (adopted by the
// sandbox) differing on 20 % of them, reconciled: about 20,000 open cases, made through the product.
// Then the queue at 1,280 px in Chromium: the money columns measured in view (screenshot kept in
// docs/images/), sort by risk with the largest difference first, and one filter resolved in bulk with
// one audit event per case. The suite runs the same helper on 10,000 orders
// (test/console-browser-reconciled.test.ts); this is too slow for `npm test` on a small machine.
//   node --import tsx bench/queue-browser.ts [--orders 100000] [--filter code=FEE&currency=NGN]
// Needs a Postgres at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and Chromium.
// Exit 1 when a check fails.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createWorld } from '../test/helpers/world.ts';
import { addUsers, FixedClock } from '../test/helpers/console.ts';
import { launchBrowser } from '../test/helpers/browser.ts';
import { reconcileADay, workQueueAt1280 } from '../test/helpers/reconciled-queue.ts';
import { serveConsole } from '../src/console/serve.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { silentLogger } from '../src/log/logger.ts';
import { benchMachine, loadAverages, recordResult } from './lib/record.ts';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '100000' },
    filter: { type: 'string', default: 'code=FEE&currency=NGN' },
    screenshot: { type: 'string', default: path.join('docs', 'images', 'console-queue-1280-reconciled-20000.png') },
  },
});
const orders = Number(values.orders);
const now = new Date();
const loadStart = loadAverages();
const world = await createWorld('bench_queue_browser');
try {
  const day = await reconcileADay(world, orders, now);
  console.log(
    `${orders} orders imported in ${day.seconds.import} s, provider copy (${day.differing} differing) adopted in ${day.seconds.adopt} s, ` +
      `reconciled in ${day.seconds.reconcile} s: ${day.cases} open cases`,
  );
  await addUsers(world.t, new FixedClock(now), { fiona: 'finance' });
  const ctx = { config: world.t.config, logger: silentLogger, db: world.t.db };
  const running = await serveConsole({ ...ctx, ...dayJobs(ctx), port: 0, pollMs: 100, lockRetryMs: 100, lockWaitMs: 20_000 });
  const browser = await launchBrowser();
  try {
    const k = world.t.db.knex;
    const [code, currency] = ['code', 'currency'].map((f) => new URLSearchParams(values.filter).get(f));
    const m = await workQueueAt1280(browser, running.url, {
      user: 'fiona',
      screenshot: values.screenshot,
      filter: values.filter,
      eventsPerCase: async () =>
        (
          await k('cases as c')
            .join('case_events as e', 'e.case_id', 'c.id')
            .where({ 'c.state': 'resolved', 'e.to_state': 'resolved' })
            .modify((q) => {
              if (code) q.where('c.code', code);
              if (currency) q.where('c.currency', currency);
            })
            .groupBy('c.id')
            .select(k.raw('count(*)::int AS n'))
        ).map((r: { n: number }) => r.n),
    });
    console.log(JSON.stringify(m, null, 2));
    const failed = [
      m.tableWrap.scrollWidth > m.tableWrap.clientWidth &&
        `table scrolls sideways (${m.tableWrap.scrollWidth} > ${m.tableWrap.clientWidth})`,
      ...Object.entries(m.columns).map(([label, right]) => right > m.windowWidth && `${label} ends at ${right} px, past ${m.windowWidth}`),
      m.firstRow.ref !== day.largestRef && `first by risk is ${m.firstRow.ref}, not ${day.largestRef}`,
      m.bulk.resolved !== m.bulk.matched && `bulk resolved ${m.bulk.resolved} of ${m.bulk.matched}`,
      !m.bulk.oneEventEach && 'not one resolve event per case',
    ].filter((x): x is string => typeof x === 'string');
    console.log(failed.length ? `FAILED: ${failed.join('; ')}` : `all checks passed; screenshot ${values.screenshot}`);
    process.exitCode = failed.length ? 1 : 0;
    recordResult('queue-browser', {
      command: `node --import tsx bench/queue-browser.ts ${process.argv.slice(2).join(' ')}`.trim(),
      machine: benchMachine('Postgres'),
      load: { start: loadStart, end: loadAverages() },
      figures: {
        orders,
        differing: day.differing,
        open_cases: day.cases,
        import_s: day.seconds.import,
        adopt_s: day.seconds.adopt,
        reconcile_s: day.seconds.reconcile,
        table_scroll_width_px: m.tableWrap.scrollWidth,
        table_client_width_px: m.tableWrap.clientWidth,
        assignee_right_px: m.columns.assignee,
        bulk_matched: m.bulk.matched,
        bulk_resolved: m.bulk.resolved,
        checks_failed: failed.length,
      },
    });
  } finally {
    await browser.close();
    await running.close();
  }
} finally {
  await world.close();
}
