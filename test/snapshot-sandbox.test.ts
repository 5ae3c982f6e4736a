// The snapshot job against the sandbox over HTTP, on a real test database.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestDatabase } from './helpers/db.ts';
import { createWorld, type World } from './helpers/world.ts';
import type { Sandbox } from '../src/sandbox/server.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { usdtRate } from '../src/sandbox/rates.ts';
import { OPENING_BALANCE } from '../src/sandbox/ledger.ts';
import { FaultRegistry } from '../src/sandbox/faults.ts';
import type { ProviderClient } from '../src/provider/client.ts';
import { silentLogger } from '../src/log/logger.ts';
import { snapshotPolicyFromConfig } from '../src/snapshot/policy.ts';
import { takeSnapshots, type SnapshotDeps } from '../src/snapshot/take-snapshots.ts';
import { findRun } from '../src/db/runs.ts';
import { snapshotJob } from '../src/services/snapshot.ts';
import { EXIT } from '../src/domain/exit-codes.ts';
import { CURRENCIES, Decimal, type Currency } from '../src/money/decimal.ts';

// The sandbox clock stands still (rates are a function of it), so every rate here is known in advance.
const SANDBOX_NOW = Date.now();
const T1 = new Date('2026-03-10T08:00:00.000Z');
const minutes = (d: Date, m: number) => new Date(d.getTime() + m * 60_000);

let world: World;
let t: TestDatabase;
let sb: Sandbox;
let control: SandboxControl;
let client: ProviderClient;

beforeAll(async () => {
  world = await createWorld('snapshot', {
    db: { env: { RATE_STALE_AFTER_MIN: '360', RATE_JUMP_PERCENT: '5' } },
    sandbox: { now: () => SANDBOX_NOW },
    client: { maxRetries: 0 },
  });
  ({ t, sandbox: sb, control, client } = world);
});
afterAll(() => world?.close());
beforeEach(async () => {
  await control.reset();
  // Each test starts from no history: previous snapshots would change flags and roll-forwards.
  await t.db.knex.raw('TRUNCATE balance_snapshots, rate_snapshots, job_runs CASCADE');
});

const deps = (clock: () => Date): SnapshotDeps => ({
  db: t.db,
  client,
  policy: snapshotPolicyFromConfig(t.config),
  clock,
  logger: silentLogger,
});

describe('payrecon snapshot', () => {
  it("stores the three currencies' balances and rates exactly as the provider sent them", async () => {
    const result = await takeSnapshots(
      deps(() => T1),
      CURRENCIES,
    );
    expect(result.status).toBe('completed');
    expect(result.failures).toEqual([]);

    const balances = await t.db.knex.raw(
      `SELECT currency, available::text AS available, pending::text AS pending, held::text AS held, credit::text AS credit, taken_at, run_id::text AS run_id
         FROM balance_snapshots ORDER BY currency`,
    );
    const sent = await Promise.all((['IDR', 'INR', 'NGN'] as const).map((c) => client.balance(c)));
    expect(balances.rows).toEqual(
      sent.map(({ currency, available, pending, held, credit }) => ({
        currency,
        available,
        pending,
        held,
        credit,
        taken_at: T1,
        run_id: result.runId,
      })),
    );
    // The digits the provider sent are the ones stored: the sandbox's opening balances, to the last unit.
    for (const row of balances.rows) {
      for (const k of ['available', 'pending', 'held', 'credit'] as const)
        expect(new Decimal(row[k]).equals(OPENING_BALANCE[row.currency as Currency][k])).toBe(true);
    }
    const rates = await t.db.knex.raw(
      `SELECT currency, deposit::text AS deposit, withdraw::text AS withdraw, flags FROM rate_snapshots ORDER BY currency`,
    );
    const sentRates = await Promise.all((['IDR', 'INR', 'NGN'] as const).map((c) => client.usdtRate(c)));
    expect(rates.rows).toEqual(sentRates.map(({ currency, deposit, withdraw }) => ({ currency, deposit, withdraw, flags: [] })));
    for (const row of rates.rows) {
      const expected = usdtRate(1, row.currency as Currency, SANDBOX_NOW);
      expect([new Decimal(row.deposit).equals(expected.deposit), new Decimal(row.withdraw).equals(expected.withdraw)]).toEqual([
        true,
        true,
      ]);
    }

    const run = await findRun(t.db.knex, result.runId!);
    expect(run).toMatchObject({
      job: 'snapshot',
      status: 'completed',
      error: null,
      counts: { balances: 3, rates: 3, failed: 0, 'code:BALANCE_DRIFT': 0 },
    });
    // A first snapshot has nothing to roll forward from.
    expect(result.currencies.map((c) => c.rollForward)).toEqual([null, null, null]);
  });

  it('one currency whose balance fails is recorded as such; the others, and its rate, are stored', async () => {
    await control.addFault({ kind: 'status500', operations: ['balance'], currencies: ['NGN'] });
    const result = await takeSnapshots(
      deps(() => T1),
      CURRENCIES,
    );

    expect(result.status).toBe('failed');
    expect(result.failures).toEqual([
      expect.objectContaining({ currency: 'NGN', step: 'balance', error: 'ProviderUnavailableError', unavailable: true }),
    ]);
    const stored = await t.db.knex('balance_snapshots').pluck('currency');
    expect(stored.sort()).toEqual(['IDR', 'INR']);
    expect((await t.db.knex('rate_snapshots').pluck('currency')).sort()).toEqual(['IDR', 'INR', 'NGN']);

    const run = await findRun(t.db.knex, result.runId!);
    expect(run?.status).toBe('failed');
    expect(run?.error).toMatch(/^NGN balance: /);
    expect(run?.counts).toMatchObject({ balances: 2, rates: 3, failed: 1 });
  });

  it('every currency unreachable is provider_unavailable; the job exits 2', async () => {
    await control.addFault({ kind: 'status500', operations: ['balance', 'usdtRate'] });
    const { exitCode, result } = await snapshotJob(
      { provider: { baseUrl: sb.url, maxRetries: 0 }, clock: () => T1 },
      { config: t.config, db: t.db, logger: silentLogger },
    );
    expect(result.status).toBe('provider_unavailable');
    expect(result.failures).toHaveLength(6);
    expect(exitCode).toBe(EXIT.INCOMPLETE);
  });

  it('refused credentials stop the run at once', async () => {
    await control.addFault({ kind: 'status401' });
    const result = await takeSnapshots(
      deps(() => T1),
      CURRENCIES,
    );
    expect(result.status).toBe('credentials');
    expect(result.error).toMatch(/credentials/);
    expect(await t.db.knex('balance_snapshots').count('* as n')).toEqual([{ n: '0' }]);
    const stats = await control.stats();
    // The first request was refused and nothing more was asked.
    expect(stats.requests.total).toBe(1);
    expect((await findRun(t.db.knex, result.runId!))?.status).toBe('credentials');
  });

  it('flags a rate unchanged longer than RATE_STALE_AFTER_MIN, counting from when it last changed', async () => {
    const first = await takeSnapshots(
      deps(() => T1),
      ['INR'],
    );
    expect(first.rateFlags).toEqual([]);
    const within = await takeSnapshots(
      deps(() => minutes(T1, 300)),
      ['INR'],
    );
    expect(within.rateFlags).toEqual([]);
    // 361 minutes after T1 though only 61 after the previous snapshot: the age runs from the first unchanged reading.
    const stale = await takeSnapshots(
      deps(() => minutes(T1, 361)),
      ['INR'],
    );
    expect(stale.rateFlags).toEqual([expect.objectContaining({ currency: 'INR', flags: ['RATE_STALE'] })]);
    expect(stale.currencies[0].rate?.unchangedSince).toEqual(T1);
    const row = await t.db.knex('rate_snapshots').where({ run_id: stale.runId }).first();
    expect(row.flags).toEqual(['RATE_STALE']);
    expect((await findRun(t.db.knex, stale.runId!))?.counts['code:RATE_STALE']).toBe(1);
  });

  it('flags a rate that moved more than RATE_JUMP_PERCENT since the previous snapshot', async () => {
    const now = usdtRate(1, 'NGN', SANDBOX_NOW);
    // A previous reading 10 % lower on the deposit side (so today's is 11.11 % up); withdraw equal.
    const before = new Decimal(now.deposit).times('0.9').toFixed();
    await t.db.knex('rate_snapshots').insert({ currency: 'NGN', deposit: before, withdraw: now.withdraw, taken_at: minutes(T1, -60) });
    const result = await takeSnapshots(
      deps(() => T1),
      ['NGN'],
    );
    expect(result.rateFlags).toEqual([
      {
        currency: 'NGN',
        flags: ['RATE_JUMP'],
        notes: [expect.stringMatching(/^deposit moved 11\.11%/)],
        rateSnapshotId: result.currencies[0].rate!.id,
      },
    ]);
    expect((await t.db.knex('rate_snapshots').where({ run_id: result.runId }).first()).flags).toEqual(['RATE_JUMP']);
  });

  it('a second run while one holds the lock is skipped', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The first run reaches the provider only while holding the lock: wait for that, not for a guessed time.
    let entered!: () => void;
    const holding = new Promise<void>((r) => (entered = r));
    const slow = {
      balance: async (c: Currency) => {
        entered();
        await gate;
        return client.balance(c);
      },
      usdtRate: (c: Currency) => client.usdtRate(c),
    };
    const running = takeSnapshots({ ...deps(() => T1), client: slow }, ['INR']);
    await holding;
    const second = await takeSnapshots(
      deps(() => T1),
      ['INR'],
    );
    release();
    expect(second.status).toBe('skipped');
    expect((await running).status).toBe('completed');
  });
});

describe('sandbox fault matching by currency', () => {
  it('hits only requests whose body has a listed currency', () => {
    const faults = new FaultRegistry();
    faults.add({ kind: 'status500', operations: ['balance'], currencies: ['NGN'] });
    expect(faults.match('balance', { currency: 'INR' }).fault).toBeUndefined();
    expect(faults.match('balance', {}).fault).toBeUndefined();
    expect(faults.match('usdtRate', { currency: 'NGN' }).fault).toBeUndefined();
    expect(faults.match('balance', { currency: 'NGN' }).fault?.kind).toBe('status500');
  });
});
