/**
 * Issue 14, item 6: the liveness rule for lock holders. A reconcile run that holds the job's lock
 * but makes no progress (a network partition leaves its session holding the lock; a hung provider
 * call does the same) must not be hidden by later runs quietly skipping. Past RUN_STALL_AFTER_SECONDS
 * without a batch written, a later run names it and how long it has been stuck, raises one
 * `run_stalled` alert, and exits 2; below the threshold it skips as before (exit 0). Clocks are fixed.
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';
import { reconcile, type ReconcileOutcome } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import type { OrderFetcher } from '../src/reconcile/fetch-answer.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { inFlightChecks } from '../src/services/schedule-runners.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { runCli, waitFor } from './helpers/cli.ts';
import { createRun } from '../src/db/runs.ts';

/** A Slack-compatible receiver that records what it was sent. */
async function startReceiver(): Promise<{ url: string; texts: string[]; close(): Promise<void> }> {
  const texts: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      texts.push((JSON.parse(body) as { text: string }).text);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    texts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const NEEDS = 'a holder on another pool keeps the advisory lock while later runs try it';

describe.skipIf(requiresServer(NEEDS))('a later reconcile finding the lock held by a run that makes no progress', () => {
  let world: World;
  let other: Db;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let config: Config;
  // The holder's fixed clock: every batch it writes, it writes at T0.
  const T0 = new Date(Math.floor(Date.now() / 1000) * 1000);
  const at = (ms: number) => () => new Date(T0.getTime() + ms);

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await createWorld('reconcile_stall', { env: { ALERT_WEBHOOK_URL: receiver.url, RUN_STALL_AFTER_SECONDS: '300' } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 10, payouts: 0, seed: 14 });
    await world.control.advanceClock(2_000);
    // Another process's pool, as a scheduler elsewhere would have.
    other = await openDatabase(world.t.config, { poolMax: 3, applicationName: 'payrecon-reconcile' });
    config = loadConfig(world.env);
  });
  afterAll(async () => {
    await other?.close();
    await world?.close();
    await receiver?.close();
  });

  const later = (ms: number) => reconcileJob({ progress: false, now: at(ms) }, { config, db: world.t.db, logger: silentLogger });
  const stalledAlerts = () => world.t.db.knex('alerts').where({ kind: 'run_stalled' }).orderBy('id');

  /**
   * The holder: a reconcile on the other pool, in batches of 2, whose provider stops answering after
   * 4 orders, its clock fixed at T0 + clockMs.
   */
  function startHolder(request: { date?: string }, clockMs: number): { holder: Promise<ReconcileOutcome>; release: () => void } {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let fetched = 0;
    const fetcher: OrderFetcher = {
      fetchPayout: (ref) => world.client.fetchPayout(ref),
      fetchPayment: async (ref) => {
        if (++fetched > 4) await released;
        return world.client.fetchPayment(ref);
      },
    };
    const holder = reconcile(
      {
        db: other,
        fetcher,
        policy: policyFromConfig(world.config),
        clock: at(clockMs),
        logger: silentLogger,
        concurrency: 1,
        batchSize: 2,
      },
      { selection: buildSelection(request, { now: at(clockMs)(), zone: 'UTC', lookbackDays: 30 }), dryRun: false },
    );
    return { holder, release };
  }
  const runningRun = () => world.t.db.knex('job_runs').where({ job: 'reconcile', status: 'running' }).first();

  it('below the threshold skips (exit 0); past it names the holder and its silence, exits 2, and alerts once; the holder moving on resolves it', async () => {
    // Orders of its own, open and due, so the due sweep has work whatever the other tests checked first.
    await seedMerchant(world.t.db.knex, world.client, { payments: 10, payouts: 0, seed: 15 });
    await world.control.advanceClock(2_000);
    const { holder, release } = startHolder({}, 0);
    // This run's alerts and messages only: the other tests raise their own.
    let held!: { id: string; heartbeat_at: string };
    const stalledAlerts = () =>
      world.t.db
        .knex('alerts')
        .where({ kind: 'run_stalled', run_id: String(held.id) })
        .orderBy('id');
    const stalledTexts = () => receiver.texts.filter((t) => t.includes('no progress since') && t.includes(`run ${held.id} `));
    try {
      // It made progress (two batches written), then none.
      await waitFor(async () => (await world.t.db.knex('job_runs').where({ job: 'reconcile', status: 'running' }).first())?.checked === 4);
      held = await world.t.db.knex('job_runs').where({ job: 'reconcile', status: 'running' }).first();
      expect(held).toMatchObject({ pid: process.pid, host: os.hostname() });
      expect(new Date(held.heartbeat_at).getTime()).toBe(T0.getTime());

      // 4 minutes without progress, threshold 5: the current behaviour, nothing done, exit 0, no alert.
      const early = await later(4 * 60_000);
      expect(early.outcome).toEqual({ status: 'skipped', runs: [] });
      expect(early.exitCode).toBe(0);
      expect(await stalledAlerts()).toEqual([]);

      // 7 m 12 s: stalled.
      const late = await later(7 * 60_000 + 12_000);
      expect(late.exitCode).toBe(2);
      expect(late.outcome).toMatchObject({
        status: 'stalled',
        runs: [],
        stall: { runId: String(held.id), pid: process.pid, host: os.hostname(), since: T0, forMs: 432_000 },
      });
      const since = T0.toISOString().replace(/\.000Z$/, 'Z');
      expect(late.outcome.lockHolder).toBe(
        `run ${held.id} (due sweep, pid ${process.pid} on ${os.hostname()}, database session ${
          late.outcome.lockHolder!.match(/database session (\d+)/)![1]
        } payrecon-reconcile) holds the lock and has made no progress for 7m 12s, since ${since}`,
      );
      const [alert] = await stalledAlerts();
      expect(alert).toMatchObject({ status: 'sent', run_id: String(held.id) });
      expect(alert.title).toBe(
        `reconcile: run ${held.id} (pid ${process.pid} on ${os.hostname()}) holds the lock with no progress since ${since}`,
      );
      expect(stalledTexts()).toHaveLength(1);

      // A later run still finding it stuck says so again (longer now) but the alert is not repeated.
      const again = await later(9 * 60_000);
      expect(again.exitCode).toBe(2);
      expect(again.outcome.lockHolder).toContain('has made no progress for 9m 0s');
      expect((await stalledAlerts()).map((a) => a.status)).toEqual(['sent', 'suppressed']);
      expect(stalledTexts()).toHaveLength(1);
    } finally {
      release();
    }
    // The holder moves again and finishes; the next run completes and the stall's alert is resolved.
    expect((await holder).status).toBe('completed');
    const after = await later(10 * 60_000);
    expect(after.exitCode).toBe(0);
    expect(after.outcome.status).toBe('completed');
    const [stalled] = await stalledAlerts();
    expect(stalled.resolved_at).not.toBeNull();
  }, 120_000);

  it("the scheduler's check of its own reconcile still in flight applies the same rule and raises the alert itself", async () => {
    // A rerun of the day this time (every order, final ones included), stuck from T0 + 1 h.
    const start = 60 * 60_000;
    const { holder, release } = startHolder({ date: T0.toISOString().slice(0, 10) }, start);
    try {
      await waitFor(async () => (await runningRun())?.checked === 4);
      const held = await runningRun();
      const check = (ms: number) =>
        inFlightChecks({ config, db: world.t.db, now: at(start + ms) }).reconcile!({
          scheduledFor: at(start + ms)(),
          reason: 'scheduled',
          signal: new AbortController().signal,
          logger: silentLogger,
        });
      const sent = receiver.texts.length;
      await check(4 * 60_000);
      expect(await stalledAlerts().where({ run_id: held.id })).toEqual([]);
      await check(6 * 60_000);
      const [alert] = await stalledAlerts().where({ run_id: held.id });
      expect(alert).toMatchObject({ status: 'sent' });
      expect(alert.title).toContain(
        `reconcile: run ${held.id} (pid ${process.pid} on ${os.hostname()}) holds the lock with no progress since`,
      );
      expect(receiver.texts.slice(sent)).toHaveLength(1);
    } finally {
      release();
    }
    expect((await holder).status).toBe('completed');
  }, 120_000);

  it("a run resumed from a dead process is taken over: its pid, host and progress are the resumer's, so it is not judged stalled by the dead one's silence", async () => {
    const today = T0.toISOString().slice(0, 10);
    const selection = buildSelection({ date: today }, { now: T0, zone: 'UTC', lookbackDays: 30 });
    // Left 'running' an hour ago by a process on another machine that died (no session holds the lock).
    const dead = await createRun(
      world.t.db.knex,
      'reconcile',
      { selection },
      { dryRun: false, now: at(-60 * 60_000)(), owner: { pid: 1, host: 'gone-host' } },
    );
    const { holder, release } = startHolder({ date: today }, 0);
    try {
      await waitFor(async () => (await runningRun())?.checked === 4);
      const resumed = await runningRun();
      expect(resumed).toMatchObject({ id: dead.id, pid: process.pid, host: os.hostname() });
      expect(new Date(resumed.heartbeat_at).getTime()).toBe(T0.getTime());
      // 4 minutes after the takeover: not stalled, although the run started an hour ago.
      expect((await later(4 * 60_000)).outcome).toEqual({ status: 'skipped', runs: [] });
    } finally {
      release();
    }
    expect((await holder).runs[0]).toMatchObject({ runId: dead.id, resumed: true, status: 'completed' });
  }, 120_000);

  it('the command prints the stalled holder in one line and exits 2', async () => {
    // Stuck since two minutes before the test began (a fixed clock in the past); threshold 60 s.
    const { holder, release } = startHolder({ date: T0.toISOString().slice(0, 10) }, -2 * 60_000);
    try {
      await waitFor(async () => (await runningRun())?.checked === 4);
      const res = await runCli(['reconcile'], { ...world.env, RUN_STALL_AFTER_SECONDS: '60' });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stdout).toMatch(
        /^reconcile: another run is stalled: run \d+ \(rerun of [^,]+, pid \d+ on [^,]+, database session \d+ payrecon-reconcile\) holds the lock and has made no progress for \d+m \d+s, since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; nothing done\n$/,
      );
    } finally {
      release();
    }
    expect((await holder).status).toBe('completed');
  }, 120_000);
});
