/**
 * Burst against `payrecon webhook serve` backed by a fresh Postgres database: 10,000 distinct signed payment
 * notifications plus 1,000 exact repeats (retries), 50 in flight, from this process while the receiver runs in
 * a child (so they do not share a core). Prints req/s, latency, rows stored (must equal the distinct count) and
 * deliveries counted (must equal requests sent). Confirmation fetches go to a sandbox that does not know these
 * orders, so they end as conflicts; the time to drain them is printed separately.
 * Run: node --import tsx bench/webhook-burst.ts [notifications] [concurrency]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { hmacSha256, unixTimestamp } from '../src/provider/signing.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { createTestDatabase } from '../test/helpers/db.ts';

const count = Number(process.argv[2] ?? 10_000);
const concurrency = Number(process.argv[3] ?? 50);
const repeats = Math.floor(count / 10);

const t = await createTestDatabase('webhook_bench', { engine: 'postgres' });
const sandbox = await startSandbox();
const child = spawn(process.execPath, ['bin/payrecon.mjs', 'webhook', 'serve', '--port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: t.url,
    PROVIDER_BASE_URL: sandbox.url,
    PROVIDER_MERCHANT_ID: 'demo-merchant',
    PROVIDER_SECRET: 'demo-secret',
  },
});

try {
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const base = /(http:\/\/\S+)\/webhooks\/payment/.exec(line)![1];
  const pool = new Pool(base, { connections: concurrency, pipelining: 1 });
  const bodies = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      transactionRef: randomUUID(),
      merchantRef: randomUUID(),
      currency: 'INR',
      method: 'NATIVE',
      amount: `${1000 + i}.50`,
      paidAmount: `${1000 + i}.50`,
      fee: '12.34',
      status: 'Success',
    }),
  );
  const sends = [...bodies, ...bodies.slice(0, repeats)];

  let next = 0;
  let failed = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < sends.length) {
        const body = sends[next++];
        const timestamp = unixTimestamp(Date.now());
        const t0 = performance.now();
        const res = await pool.request({
          path: '/webhooks/payment',
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', timestamp, signature: hmacSha256.sign({ timestamp, body }, 'demo-secret') },
        });
        const text = await res.body.text();
        latencies.push(performance.now() - t0);
        if (res.statusCode !== 200 || text !== 'SUCCESS') failed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();

  const [{ rows, deliveries }] = await t.db
    .knex('webhook_events')
    .select(t.db.knex.raw('count(*)::int as rows'), t.db.knex.raw('sum(deliveries)::int as deliveries'));
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.floor(q * (latencies.length - 1))].toFixed(1);
  console.log(
    `webhook burst: ${sends.length} requests (${count} distinct + ${repeats} repeats) in ${elapsed.toFixed(2)} s = ${Math.round(sends.length / elapsed)} req/s at concurrency ${concurrency}; non-SUCCESS answers ${failed}; latency ms p50 ${p(0.5)} p99 ${p(0.99)}`,
  );
  console.log(
    `stored rows ${rows} (expected ${count}), deliveries counted ${deliveries} (expected ${sends.length}): ${rows === count && deliveries === sends.length && failed === 0 ? 'none lost, none doubled' : 'MISMATCH'}`,
  );

  const drainStart = performance.now();
  for (;;) {
    const [{ n }] = await t.db.knex('webhook_events').where({ confirmation: 'pending' }).count<{ n: string }[]>('* as n');
    if (Number(n) === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(
    `confirmations drained (sandbox answers not found: conflicts) ${((performance.now() - drainStart) / 1000 + elapsed).toFixed(1)} s after the burst began`,
  );
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
  await sandbox.close();
  await t.drop();
}
