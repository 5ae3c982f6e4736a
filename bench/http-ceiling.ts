/**
 * The HTTP ceiling for bench/run.ts: nothing but signed payment/payout fetches through the real
 * ProviderClient, at the job's concurrency, over the same bulk-seeded orders, for a fixed time.
 * Prints one JSON line: { requests, seconds, rps, errors, cpu_us_per_request } (this process's CPU only).
 *
 *   node --import tsx bench/http-ceiling.ts --base-url URL --seed S --orders N --concurrency C [--seconds 10]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.ts';
import { createProviderClient } from '../src/provider/from-config.ts';
import { syntheticOrder } from '../src/sandbox/synthetic.ts';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    seed: { type: 'string', default: '1' },
    orders: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '64' },
    seconds: { type: 'string', default: '10' },
  },
});
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
// Enough distinct orders that the sample is not a handful of hot ones; computed before the clock starts.
const sample = Math.min(Number(values.orders), 50_000);
const orders = Array.from({ length: sample }, (_, i) => {
  const o = syntheticOrder(seed, i);
  return { direction: o.direction, ref: o.transactionRef };
});

const config = loadConfig({
  PROVIDER_BASE_URL: values['base-url'],
  RECON_CONCURRENCY: String(concurrency),
  PROVIDER_MERCHANT_ID: process.env.PROVIDER_MERCHANT_ID,
  PROVIDER_SECRET: process.env.PROVIDER_SECRET,
  LOG_LEVEL: 'warn',
});
const client = await createProviderClient(config);

// Warm-up: open the keep-alive sockets and let V8 compile the hot paths before timing.
await Promise.all(
  orders
    .slice(0, concurrency * 4)
    .map((o) => (o.direction === 'payment' ? client.fetchPayment(o.ref) : client.fetchPayout(o.ref)).catch(() => undefined)),
);

const cpuStart = process.cpuUsage();
let next = 0;
let done = 0;
let errors = 0;
const start = performance.now();
const end = start + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const o = orders[next++ % orders.length];
      try {
        await (o.direction === 'payment' ? client.fetchPayment(o.ref) : client.fetchPayout(o.ref));
      } catch {
        errors++;
      }
      done++;
    }
  }),
);
const elapsed = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuStart);
await client.close();
process.stdout.write(
  `${JSON.stringify({ requests: done, seconds: Number(elapsed.toFixed(2)), rps: Math.round(done / elapsed), errors, cpu_us_per_request: Math.round((cpu.user + cpu.system) / done) })}\n`,
);
