import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { createWorld, type World } from './helpers/world.ts';
import { waitFor } from './helpers/cli.ts';
import { Agent, addUsers, FixedClock } from './helpers/console.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { serveConsole, type RunningConsole } from '../src/console/serve.ts';
import { dayJobs } from '../src/services/day-jobs.ts';
import { findRerun } from '../src/db/console-reruns.ts';
import { listReportVersions } from '../src/db/reports.ts';
import { silentLogger } from '../src/log/logger.ts';

describe('console reruns', () => {
  let world: World;
  let reportDir: string;
  let running: RunningConsole;
  const clock = new FixedClock(new Date());
  const today = DateTime.utc().toISODate()!;

  beforeAll(async () => {
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-console-reruns-'));
    world = await createWorld('console_reruns', { env: { REPORT_DIR: reportDir } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 12, payouts: 8, seed: 3 });
    await world.control.advanceClock(2_000);
    await addUsers(world.t, clock, { fiona: 'finance' });
    const ctx = { config: world.config, logger: silentLogger, db: world.t.db };
    running = await serveConsole({ ...ctx, ...dayJobs(ctx), now: clock.now, port: 0, pollMs: 50, lockRetryMs: 50, lockWaitMs: 10_000 });
  });
  afterAll(async () => {
    await running?.close();
    await world?.close();
    fs.rmSync(reportDir, { recursive: true, force: true });
  });

  it('a rerun queued from the browser runs in the worker, not in the request: reconcile then report, one new version', async () => {
    const agent = new Agent(running.app);
    await agent.login('fiona');
    const res = await agent.post('/reruns', { date: today });
    expect(res.statusCode).toBe(303);
    const id = /\/reruns\/(\d+)$/.exec(res.headers.location as string)![1];
    await waitFor(async () => ['completed', 'failed'].includes((await findRerun(world.t.db.knex, id))!.state));
    const rerun = (await findRerun(world.t.db.knex, id))!;
    expect(rerun).toMatchObject({ state: 'completed', error: null, reportVersion: 1 });
    expect(rerun.reconcileRunIds).toHaveLength(1);
    const checked = await world.t.db
      .knex('recon_items')
      .where({ run_id: rerun.reconcileRunIds[0] })
      .count<{ count: string }[]>('* as count');
    expect(Number(checked[0].count)).toBe(20);
    expect((await listReportVersions(world.t.db.knex, today)).map((v) => v.version)).toEqual([1]);
    const page = await agent.get(`/reruns/${id}`);
    expect(page.body).toContain('done: reconciled and reported');
    expect(page.body).not.toContain('http-equiv="refresh"');
  });

  it('two reruns queued together run one after the other', async () => {
    const agent = new Agent(running.app);
    await agent.login('fiona');
    const yesterday = DateTime.utc().minus({ days: 1 }).toISODate()!;
    const a = /\d+$/.exec((await agent.post('/reruns', { date: yesterday })).headers.location as string)![0];
    const b = /\d+$/.exec((await agent.post('/reruns', { date: today })).headers.location as string)![0];
    await waitFor(async () => (await findRerun(world.t.db.knex, b))!.state === 'completed');
    const [ra, rb] = [(await findRerun(world.t.db.knex, a))!, (await findRerun(world.t.db.knex, b))!];
    expect(ra.state).toBe('completed');
    expect(rb.startedAt!.getTime()).toBeGreaterThanOrEqual(ra.finishedAt!.getTime());
    const actions = await world.t.db.knex('console_actions').where({ action: 'rerun-queued' }).count<{ count: string }[]>('* as count');
    expect(Number(actions[0].count)).toBe(3);
  });
});
