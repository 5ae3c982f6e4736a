import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { startCli, waitFor } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';

const NEEDS = 'a `payrecon schedule` process and the test share one Postgres database';

describe.skipIf(requiresServer(NEEDS))('payrecon schedule as a process', () => {
  let world: World;
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-sched-reports-'));

  beforeAll(async () => {
    world = await createWorld('sched_proc', { env: { RECON_CONCURRENCY: '4', RECON_BATCH_SIZE: '10', REPORT_DIR: reportDir } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 200, payouts: 100, seed: 5 });
    await world.control.advanceClock(2_000);
  });
  afterAll(async () => {
    await world?.close();
    fs.rmSync(reportDir, { recursive: true, force: true });
  });

  const runs = (job: string) => world.t.db.knex('job_runs').where({ job }).orderBy('id');

  it('SIGTERM during a reconcile: the run checkpoints as interrupted (resumable) and the scheduler exits 0', async () => {
    await world.control.setLatency(25);
    try {
      // A fresh database: the reconcile's latest occurrence has no run, so it is caught up at start.
      const proc = startCli(['schedule'], {
        ...world.env,
        LOG_LEVEL: 'info',
        SCHEDULE_SNAPSHOT: 'off',
        SCHEDULE_BANK_CODES: 'off',
        SCHEDULE_DAILY: 'off',
      });
      let runId = '';
      await waitFor(async () => {
        const r = (await runs('reconcile')).at(-1);
        runId = r?.id;
        return r?.status === 'running' && r.checked >= 20;
      });
      proc.child.kill('SIGTERM');
      const exit = await proc.done;
      expect(exit.code, exit.stderr).toBe(0);
      const row = await world.t.db.knex('job_runs').where({ id: runId }).first();
      expect(row.status).toBe('interrupted');
      expect(row.checked).toBeGreaterThan(0);
      expect(row.checked).toBeLessThan(row.selected);
      expect(Object.keys(row.checkpoint).length).toBeGreaterThan(0);
      const lines = exit.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(
        lines.some((l) => /^catch-up: reconcile missed since \d{4}-\d\d-\d\d \d\d:\d\d:00 [+-]\d\d:\d\d; running it now$/.test(l.msg)),
      ).toBe(true);
      expect(lines.some((l) => l.msg === 'scheduler stopped')).toBe(true);
    } finally {
      await world.control.setLatency(0);
    }
  });

  it('a missed daily is caught up at start: yesterday reconciled and reported, recorded as a daily run', async () => {
    const yesterday = DateTime.utc().minus({ days: 1 }).toISODate()!;
    // Every minute is an occurrence, so the latest one is now and covers yesterday whatever the hour.
    const proc = startCli(['schedule'], {
      ...world.env,
      SCHEDULE_RECONCILE: 'off',
      SCHEDULE_SNAPSHOT: 'off',
      SCHEDULE_BANK_CODES: 'off',
      SCHEDULE_DAILY: '* * * * *',
    });
    try {
      await waitFor(async () => (await runs('daily')).some((r) => r.status === 'completed'), 60_000);
    } finally {
      proc.child.kill('SIGTERM');
    }
    const exit = await proc.done;
    expect(exit.code, exit.stderr).toBe(0);
    const [daily] = await runs('daily');
    expect(daily).toMatchObject({ status: 'completed', params: { date: yesterday, email: false } });
    const versions = await world.t.db.knex('report_versions').whereRaw('business_date = ?::date', [yesterday]);
    expect(versions).toHaveLength(1);
    expect(fs.existsSync(path.join(reportDir, yesterday))).toBe(true);
    // The reconcile of the day ran (it also resumes the interrupted run from the test above first).
    const dayRuns = (await runs('reconcile')).filter((r) => r.params.selection?.label === yesterday);
    expect(dayRuns.map((r) => r.status)).toEqual(['completed']);
  });
});
