// The provider budget and its 429 handling per account (per MerchantID), over HTTP against one sandbox
// serving several MerchantIDs, each with its own rate limit, and a real Postgres holding the schedule:
// - a 429 storm on one MerchantID (its account configured above what the provider allows) neither
//   throttles nor stops another account's requests: no 429 for it, its calls in flight never cut;
// - two clients of one MerchantID (two processes: separate slot stores on one database) share one
//   budget: together they stay within the provider's limit, no 429; the same two with a budget each
//   (memory, nothing shared) are refused, so the shared schedule is what keeps them under it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config/config.ts';
import { accountFor } from '../src/config/accounts.ts';
import { createAccountClient } from '../src/provider/from-config.ts';
import type { ProviderClient } from '../src/provider/client.ts';
import { PostgresSlotStore } from '../src/db/provider-budget.ts';
import { MemorySlotStore, type SlotStore } from '../src/provider/slot-store.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { silentLogger } from '../src/log/logger.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/server.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { CLEAN_LIFECYCLE } from './helpers/world.ts';

const CONCURRENCY = 8;
// The provider's limit per MerchantID (the sandbox's) and what each account is configured with.
const MERCHANTS = [
  { id: 'M-IN', secret: 'secret-in', rateLimitPerSec: 4 }, // in-main is configured at 40: a storm of 429s
  { id: 'M-NG', secret: 'secret-ng', rateLimitPerSec: 20 },
  { id: 'M-SH', secret: 'secret-sh', rateLimitPerSec: 20 },
  { id: 'M-SOLO', secret: 'secret-solo', rateLimitPerSec: 20 },
];

describe.skipIf(requiresServer('the shared provider budget lives in Postgres'))('provider budget per account', () => {
  let t: TestDatabase;
  let sandbox: Sandbox;
  let control: SandboxControl;
  let config: Config;
  const refs: Record<string, string> = {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-budget-accounts-'));

  beforeAll(async () => {
    t = await createTestDatabase('budget_accounts');
    sandbox = await startSandbox({ lifecycle: CLEAN_LIFECYCLE, merchants: MERCHANTS });
    control = new SandboxControl(sandbox.url);
    const file = path.join(dir, 'accounts.json');
    const account = (id: string, merchantId: string, env: string, rateLimitPerSec: number) => ({
      id,
      baseUrl: sandbox.url,
      merchantId,
      secret: { env },
      rateLimitPerSec,
    });
    fs.writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          account('in-main', 'M-IN', 'IN_SECRET', 40),
          account('ng-brand', 'M-NG', 'NG_SECRET', 20),
          account('shared', 'M-SH', 'SH_SECRET', 20),
          account('solo', 'M-SOLO', 'SOLO_SECRET', 20),
        ],
      }),
    );
    config = loadConfig({
      DATABASE_URL: t.url!,
      ACCOUNTS_FILE: file,
      IN_SECRET: 'secret-in',
      NG_SECRET: 'secret-ng',
      SH_SECRET: 'secret-sh',
      SOLO_SECRET: 'secret-solo',
      LOG_LEVEL: 'silent',
    });
    // One order per MerchantID, created by a client kept well under every provider limit.
    for (const [i, id] of ['in-main', 'ng-brand', 'shared', 'solo'].entries()) {
      const a = accountFor(config, id);
      const seeder = await createAccountClient(
        config,
        { ...a, rateLimitPerSec: 2 },
        { logger: silentLogger, slotStore: new MemorySlotStore() },
      );
      try {
        const [order] = await seedMerchant(t.db.knex, seeder, { payments: 1, payouts: 0, seed: 100 + i });
        refs[id] = order.transactionRef;
      } finally {
        await seeder.close();
      }
    }
    await control.advanceClock(2_000);
    // The seeding's requests are not the measurement's (sets every merchant's limit back as it was).
    for (const m of MERCHANTS) await control.setRateLimit(m.rateLimitPerSec, m.id);
  });
  afterAll(async () => {
    await sandbox?.close();
    await t?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const client = (id: string, slotStore: SlotStore = new PostgresSlotStore(t.db.knex)) =>
    createAccountClient(config, accountFor(config, id), { logger: silentLogger, slotStore, concurrency: CONCURRENCY, retryBaseMs: 50 });

  /** `n` fetches of the account's order, all started at once; resolves with the seconds taken. */
  async function fetches(c: ProviderClient, ref: string, n: number): Promise<number> {
    const start = performance.now();
    const answers = await Promise.all(Array.from({ length: n }, () => c.fetchPayment(ref)));
    for (const a of answers) expect(a.transactionRef).toBe(ref);
    return (performance.now() - start) / 1000;
  }

  it("a 429 storm on one MerchantID does not throttle or stop another account's requests", async () => {
    // The storm's store records the Retry-After holds it passes on to the account's shared schedule.
    const holds: Array<{ account: string; forMs: number }> = [];
    const recording = new PostgresSlotStore(t.db.knex);
    const stormStore: SlotStore = {
      reserve: (req) => recording.reserve(req),
      hold: async (account, forMs) => {
        holds.push({ account, forMs });
        await recording.hold(account, forMs);
      },
    };
    const storm = await client('in-main', stormStore);
    const calm = await client('ng-brand');
    try {
      const [stormS, calmS] = await Promise.all([fetches(storm, refs['in-main'], 24), fetches(calm, refs['ng-brand'], 60)]);
      const per = (await control.stats()).rate.perMerchant;
      // Figures (no timed assertion): ng-brand's rate against its limit while in-main was refused.
      console.log(
        `[budget-accounts] ${new Date().toISOString()} storm in-main: 24 fetches in ${stormS.toFixed(2)} s, ` +
          `${per['M-IN'].throttled} answers 429, calls in flight down to ${storm.throttle.lowestLimit}; ` +
          `ng-brand: 60 fetches in ${calmS.toFixed(2)} s = ${(60 / calmS).toFixed(1)}/s of its 20/s, ${per['M-NG'].throttled} answers 429`,
      );
      expect(per['M-IN'].throttled).toBeGreaterThan(0);
      expect(storm.throttle.throttled).toBe(per['M-IN'].throttled);
      expect(storm.throttle.lowestLimit).toBeLessThan(CONCURRENCY);
      // Each 429's Retry-After went to M-IN's shared schedule, never to another MerchantID's.
      expect(holds.length).toBe(per['M-IN'].throttled);
      expect(new Set(holds.map((h) => h.account))).toEqual(new Set(['M-IN']));
      expect(holds.every((h) => h.forMs > 0)).toBe(true);
      // The other MerchantID: never refused, never slowed down by the storm's backoff.
      expect(per['M-NG'].throttled).toBe(0);
      expect(calm.throttle.throttled).toBe(0);
      expect(calm.throttle.lowestLimit).toBe(CONCURRENCY);
      // One schedule per MerchantID in the shared table.
      const rows = (await t.db.knex('provider_budget').whereIn('account', ['M-IN', 'M-NG']).pluck('account')) as string[];
      expect(rows.sort()).toEqual(['M-IN', 'M-NG']);
    } finally {
      await storm.close();
      await calm.close();
    }
  });

  it('two processes of one MerchantID share one budget: together within the provider limit, no 429', async () => {
    // Two slot stores on the database: what two processes have; nothing shared in memory.
    const a = await client('shared', new PostgresSlotStore(t.db.knex));
    const b = await client('shared', new PostgresSlotStore(t.db.knex));
    try {
      const [sa, sb] = await Promise.all([fetches(a, refs.shared, 40), fetches(b, refs.shared, 40)]);
      const per = (await control.stats()).rate.perMerchant;
      const seconds = Math.max(sa, sb);
      console.log(
        `[budget-accounts] ${new Date().toISOString()} shared budget: 2 clients x 40 fetches in ${seconds.toFixed(2)} s = ` +
          `${(80 / seconds).toFixed(1)}/s together of M-SH's 20/s, ${per['M-SH'].throttled} answers 429`,
      );
      expect(per['M-SH'].throttled).toBe(0);
      expect(a.throttle.throttled + b.throttle.throttled).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a 429's Retry-After holds the MerchantID's schedule for every process, and no other MerchantID's", async () => {
    let now = 1_000_000;
    const a = new PostgresSlotStore(t.db.knex, () => now);
    const b = new PostgresSlotStore(t.db.knex, () => now);
    const req = (account: string) => ({ account, want: 1, intervalMs: 50, horizonMs: 5_000 });
    await a.reserve(req('M-HOLD'));
    await b.reserve(req('M-OTHER'));
    now += 10_000;
    // Process a was told "Retry-After: 2 s" for M-HOLD: process b's next slot of M-HOLD is 2 s out, M-OTHER's is now.
    await a.hold('M-HOLD', 2_000);
    expect((await b.reserve(req('M-HOLD'))).firstSlotMs).toBe(now + 2_000);
    expect((await b.reserve(req('M-OTHER'))).firstSlotMs).toBe(now);
    // A shorter hold later does not pull the schedule back.
    await b.hold('M-HOLD', 100);
    expect((await a.reserve(req('M-HOLD'))).firstSlotMs).toBe(now + 2_050);
    // In memory (PGlite, one process) the same rule.
    const mem = new MemorySlotStore(() => now);
    await mem.hold('M-HOLD', 2_000);
    expect((await mem.reserve(req('M-HOLD'))).firstSlotMs).toBe(now + 2_000);
  });

  it('the same two clients with a budget each (nothing shared) exceed the limit and are refused', async () => {
    const a = await client('solo', new MemorySlotStore());
    const b = await client('solo', new MemorySlotStore());
    try {
      await Promise.all([fetches(a, refs.solo, 40), fetches(b, refs.solo, 40)]);
      const per = (await control.stats()).rate.perMerchant;
      console.log(`[budget-accounts] ${new Date().toISOString()} unshared control: ${per['M-SOLO'].throttled} answers 429 for M-SOLO`);
      expect(per['M-SOLO'].throttled).toBeGreaterThan(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
