/**
 * One more process spending the provider account's budget, for bench/budget.ts: signed fetches of
 * bulk-seeded orders through the real ProviderClient with the shared schedule of the database in
 * DATABASE_URL (PROVIDER_RATE_LIMIT from the environment), for a fixed time, at a given priority,
 * either as fast as the budget allows or offering a fixed rate (webhook confirmations arrive at their own pace).
 * Prints one JSON line: { ok, errors, seconds, throttled, lowestLimit, expiredSlots }.
 *
 *   node --import tsx bench/budget-worker.ts --seed S --orders N --seconds T --priority urgent|sweep|recheck [--offer R] [--concurrency C]
 */
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/connect.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import type { BudgetPriority } from '../src/provider/rate-limit.ts';
import { syntheticOrder } from '../src/sandbox/synthetic.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    orders: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '30' },
    priority: { type: 'string', default: 'sweep' },
    offer: { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '32' },
  },
});
const seed = Number(values.seed);
const count = Number(values.orders);
const priority = values.priority as BudgetPriority;
const offer = Number(values.offer);
const concurrency = Number(values.concurrency);

const config = loadConfig({ ...process.env, RECON_CONCURRENCY: String(concurrency) } as Record<string, string>);
const db = await openDatabase(config, { poolMax: 2 });
const client = await createProviderClient(config, { slotStore: db.engine.slotStore() });
let ok = 0;
let errors = 0;
let i = 0;
const fetchOne = async () => {
  const o = syntheticOrder(seed, i++ % count);
  try {
    await (o.direction === 'payment'
      ? client.fetchPayment(o.transactionRef, { priority })
      : client.fetchPayout(o.transactionRef, { priority }));
    ok++;
  } catch {
    errors++;
  }
};
const start = performance.now();
const end = start + Number(values.seconds) * 1000;
if (offer > 0) {
  // A fixed offered rate: one call every 1000 / offer ms, however long the previous ones take.
  const limit = pLimit(concurrency);
  const calls: Promise<void>[] = [];
  for (let k = 0; performance.now() < end; k++) {
    const due = start + (k * 1000) / offer;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    calls.push(limit(fetchOne));
  }
  await Promise.all(calls);
} else {
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await fetchOne();
    }),
  );
}
const seconds = (performance.now() - start) / 1000;
await client.close();
await db.close();
process.stdout.write(
  `${JSON.stringify({ ok, errors, seconds: Number(seconds.toFixed(2)), throttled: client.throttle.throttled, lowestLimit: client.throttle.lowestLimit, expiredSlots: client.expiredSlots })}\n`,
);
