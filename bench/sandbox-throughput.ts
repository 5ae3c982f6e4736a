/**
 * Payment fetch throughput of the sandbox: starts `payrecon sandbox` in a child process (so client and server
 * do not share a core), creates 1,000 payments, then fetches them at concurrency 64 over keep-alive for ~5 s.
 * Run: node --import tsx bench/sandbox-throughput.ts [seconds] [concurrency]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { stringifyBody } from '../src/provider/json.ts';
import { PATHS } from '../src/provider/types.ts';
import { signedPost } from '../test/helpers/signed-post.ts';

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 64);

const child = spawn(process.execPath, ['bin/payrecon.mjs', 'sandbox', '--port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, LOG_LEVEL: 'warn', PROVIDER_MERCHANT_ID: 'demo-merchant', PROVIDER_SECRET: 'demo-secret' },
});
const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
const baseUrl = /(http:\/\/\S+)/.exec(line)![1];
const pool = new Pool(baseUrl, { connections: concurrency, pipelining: 1 });
const creds = { baseUrl, merchantId: 'demo-merchant', secret: 'demo-secret', dispatcher: pool };

try {
  const refs: string[] = [];
  for (let i = 0; i < 1000; i++) {
    const res = await signedPost(
      creds,
      PATHS.paymentInitiate,
      stringifyBody({
        merchantRef: `bench-${i}`,
        currency: 'INR',
        method: 'NATIVE',
        amount: `${100 + i}.50`,
        name: 'Bench',
        phone: '+919800000000',
        email: 'bench@example.com',
        redirectUrl: 'https://shop.example.com/done',
      }),
    );
    refs.push(/"transactionRef":"([^"]+)"/.exec(res.text)![1]);
  }

  let done = 0;
  let errors = 0;
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = w; performance.now() < end; i += concurrency) {
        const t = performance.now();
        const res = await signedPost(creds, PATHS.paymentFetch, JSON.stringify({ transactionRef: refs[i % refs.length] }));
        if (res.status !== 200 || !res.text.startsWith('{"code":"200"')) errors++;
        latencies.push(performance.now() - t);
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.floor(q * (latencies.length - 1))].toFixed(2);
  console.log(
    `payment fetch: ${done} requests in ${elapsed.toFixed(1)} s = ${Math.round(done / elapsed)} req/s at concurrency ${concurrency}; errors ${errors}; latency ms p50 ${p(0.5)} p99 ${p(0.99)}`,
  );
} finally {
  await pool.close();
  child.kill('SIGTERM');
}
