import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { buildStatus } from '../src/status/build.ts';
import { renderStatus } from '../src/status/render.ts';
import { CronSpec } from '../src/schedule/cron.ts';
import type { RunRow } from '../src/db/runs.ts';

const ZONE = 'Asia/Kolkata';
const NOW = new Date('2026-03-10T03:40:00Z'); // 09:10 IST

describe('status view (pure, fixed clock)', () => {
  const run = (job: string, over: Partial<RunRow> = {}): RunRow => ({
    id: '1',
    job,
    accountId: 'default',
    params: {},
    status: 'completed',
    dryRun: false,
    startedAt: new Date('2026-03-10T03:30:00Z'),
    heartbeatAt: NOW,
    pid: null,
    host: null,
    finishedAt: new Date('2026-03-10T03:31:00Z'),
    checkpoint: {},
    selected: 0,
    checked: 0,
    counts: {},
    error: null,
    ...over,
  });
  const status = buildStatus({
    now: NOW,
    timezone: ZONE,
    schedules: {
      reconcile: CronSpec.parse('*/15 * * * *', ZONE),
      snapshot: null,
      'bank-codes': CronSpec.parse('30 2 * * *', ZONE),
      daily: CronSpec.parse('0 6 * * *', ZONE),
    },
    lastRuns: [
      run('reconcile', { selected: 300, checked: 300, counts: { 'verdict:matched': 296, 'verdict:mismatch': 4, 'code:AMOUNT': 4 } }),
      run('webhook-confirm', { status: 'failed', error: 'provider unavailable' }),
    ],
    pendingEmails: [
      {
        id: '9',
        business_date: '2026-03-09',
        version: 2,
        directory: '/r',
        manifest: {},
        email_status: 'pending',
        email_attempts: 3,
        email_error: 'connection refused',
        emailed_at: null,
        account_id: 'default',
        removed_at: null,
        archived_to: null,
      },
    ],
    openAlerts: [
      { id: '5', kind: 'mismatch', title: '4 mismatches in run 1', status: 'pending', createdAt: NOW, attempts: 1, lastError: null },
    ],
    stallAfterMs: 300_000,
  });

  it('lists every scheduled job with its next time (off: none), then other recorded jobs', () => {
    expect(status.jobs.map((j) => [j.job, j.schedule, j.next?.toISOString() ?? null, j.lastRun?.status ?? null])).toEqual([
      ['reconcile', '*/15 * * * *', '2026-03-10T03:45:00.000Z', 'completed'],
      ['snapshot', 'off', null, null],
      ['bank-codes', '30 2 * * *', '2026-03-10T21:00:00.000Z', null],
      ['daily', '0 6 * * *', '2026-03-11T00:30:00.000Z', null],
      ['webhook-confirm', null, null, 'failed'],
    ]);
    expect(status.pendingEmails).toEqual([{ businessDate: '2026-03-09', version: 2, attempts: 3, error: 'connection refused' }]);
  });

  it('renders tables in the business time zone', () => {
    const text = renderStatus(status);
    expect(text).toContain('payrecon status at 2026-03-10 09:10 (Asia/Kolkata)');
    expect(text).toMatch(
      /reconcile\s+\*\/15 \* \* \* \*\s+2026-03-10 09:00\s+completed\s+300\/300 matched=296 mismatch=4\s+2026-03-10 09:15/,
    );
    expect(text).toMatch(/snapshot\s+off\s+-\s+never run/);
    expect(text).toMatch(/webhook-confirm\s+-\s+2026-03-10 09:00\s+failed: provider unavailable/);
    expect(text).toMatch(/2026-03-09\s+2\s+3\s+connection refused/);
    expect(text).toMatch(/2026-03-10 09:10\s+0m\s+mismatch\s+pending\s+4 mismatches in run 1/);
  });
});

// A payrecon process beside the test's own connection: PGlite serves one at a time.
describe.skipIf(requiresServer('the status process opens the database this test holds open'))('payrecon status against a database', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('status_cli');
    const now = new Date();
    await t.db
      .knex('job_runs')
      .insert({ job: 'snapshot', status: 'completed', started_at: now, finished_at: now, counts: JSON.stringify({ currencies: 3 }) });
    await t.db.knex('report_versions').insert({
      business_date: '2026-03-09',
      version: 1,
      directory: '/tmp/x',
      manifest: '{}',
      content_hash: 'h',
      created_at: now,
      email_status: 'pending',
      email_attempts: 1,
      email_error: 'smtp down',
    });
    await t.db
      .knex('alerts')
      .insert({ fingerprint: 'f1', kind: 'run_failed', title: 'reconcile failed', payload: '{}', created_at: now, status: 'pending' });
    await t.db.knex('alerts').insert({
      fingerprint: 'f2',
      kind: 'old',
      title: 'delivered long ago',
      payload: '{}',
      created_at: new Date(now.getTime() - 3 * 86_400_000),
      status: 'sent',
    });
    await t.db.knex('alerts').insert({
      fingerprint: 'f3',
      kind: 'balance_drift',
      title: 'drift explained since',
      payload: '{}',
      created_at: new Date(now.getTime() - 86_400_000),
      status: 'sent',
      resolved_at: now,
    });
  });
  afterAll(() => t?.drop());

  it('--json: last runs, next times, pending e-mails and open alerts', async () => {
    const env: Record<string, string> = t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR };
    const res = await runCli(['status', '--json'], { ...env, LOG_LEVEL: 'warn', SCHEDULE_BANK_CODES: 'off' });
    expect(res.code, res.stderr).toBe(0);
    const s = JSON.parse(res.stdout);
    const byJob = Object.fromEntries(s.jobs.map((j: { job: string }) => [j.job, j]));
    expect(byJob.snapshot.lastRun).toMatchObject({ status: 'completed', counts: { currencies: 3 } });
    expect(byJob.reconcile).toMatchObject({ schedule: '*/15 * * * *', lastRun: null });
    expect(new Date(byJob.reconcile.next).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(byJob['bank-codes']).toMatchObject({ schedule: 'off', next: null });
    expect(s.pendingEmails).toEqual([{ businessDate: '2026-03-09', version: 1, attempts: 1, error: 'smtp down' }]);
    // Open until its cause clears, however old; a resolved one is not open.
    expect(s.openAlerts.map((a: { title: string; age: string }) => [a.title, a.age])).toEqual([
      ['reconcile failed', expect.stringMatching(/^\d+m$/)],
      ['delivered long ago', '3d'],
    ]);
  });

  it('a bad SCHEDULE_* value exits 3 naming the variable', async () => {
    const env: Record<string, string> = t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR };
    const res = await runCli(['status'], { ...env, SCHEDULE_DAILY: 'at six' });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/SCHEDULE_DAILY: expected a 5-field cron expression/);
  });
});

describe('status marks stalled and dry runs (pure, fixed clock; RUN_STALL_AFTER_SECONDS=300)', () => {
  const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);
  const running = (job: string, progressMinutesAgo: number, over: Partial<RunRow> = {}): RunRow => ({
    id: '42',
    job,
    accountId: 'default',
    params: {},
    status: 'running',
    dryRun: false,
    startedAt: minutesAgo(120),
    heartbeatAt: minutesAgo(progressMinutesAgo),
    pid: 5120,
    host: 'worker-1',
    finishedAt: null,
    checkpoint: {},
    selected: 500,
    checked: 40,
    counts: {},
    error: null,
    ...over,
  });
  const status = buildStatus({
    now: NOW,
    timezone: ZONE,
    schedules: { reconcile: null, snapshot: null, 'bank-codes': null, daily: null },
    lastRuns: [
      // No batch written for 7 m 12 s: stalled.
      running('reconcile', 7.2),
      // Rows that record only their start and end (the snapshot's and the daily's wait on reconcile runs): never judged.
      running('snapshot', 120),
      running('daily', 120),
      running('bank-codes', 0, { status: 'completed', dryRun: true, finishedAt: NOW, heartbeatAt: NOW }),
    ],
    pendingEmails: [],
    openAlerts: [],
    stallAfterMs: 300_000,
  });
  const byJob = Object.fromEntries(status.jobs.map((j) => [j.job, j.lastRun]));

  it('a running reconcile with no progress for longer than the threshold is stalled, with since when', () => {
    expect(byJob.reconcile?.stalled).toEqual({ since: minutesAgo(7.2), forMs: 432_000 });
    expect(byJob.snapshot?.stalled).toBeNull();
    expect(byJob.daily?.stalled).toBeNull();
    expect(byJob['bank-codes']).toMatchObject({ dryRun: true, stalled: null });
  });

  it('renders STALLED with the silence, its start and the process; a dry run is marked', () => {
    const text = renderStatus(status);
    // 03:32:48Z is 09:02 IST.
    expect(text).toMatch(/reconcile .* running, STALLED: no progress for 7m 12s, since 2026-03-10 09:02 \(pid 5120 on worker-1\)/);
    expect(text).toMatch(/snapshot .* running\s/);
    expect(text).not.toMatch(/snapshot .*STALLED/);
    expect(text).toMatch(/bank-codes .* completed \(dry run\)/);
  });
});

describe.skipIf(requiresServer('the status process opens the database this test holds open'))(
  'payrecon status marks a stalled run and a dry run, against a database',
  () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase('status_stall');
      const now = Date.now();
      await t.db.knex('job_runs').insert({
        job: 'reconcile',
        status: 'running',
        started_at: new Date(now - 60 * 60_000),
        heartbeat_at: new Date(now - 20 * 60_000),
        pid: 5120,
        host: 'worker-1',
        selected: 500,
        checked: 40,
      });
      await t.db.knex('job_runs').insert({
        job: 'snapshot',
        status: 'completed',
        dry_run: true,
        started_at: new Date(now - 5 * 60_000),
        heartbeat_at: new Date(now - 5 * 60_000),
        finished_at: new Date(now - 5 * 60_000),
      });
    });
    afterAll(() => t?.drop());

    it('--json and the table: STALLED past RUN_STALL_AFTER_SECONDS, "(dry run)" for a dry run', async () => {
      const env: Record<string, string> = t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR };
      const json = await runCli(['status', '--json'], { ...env, LOG_LEVEL: 'warn', RUN_STALL_AFTER_SECONDS: '600' });
      expect(json.code, json.stderr).toBe(0);
      const s = JSON.parse(json.stdout);
      const byJob = Object.fromEntries(s.jobs.map((j: { job: string; lastRun: unknown }) => [j.job, j.lastRun]));
      expect(byJob.reconcile).toMatchObject({ status: 'running', pid: 5120, host: 'worker-1', stalled: { forMs: expect.any(Number) } });
      expect(byJob.reconcile.stalled.forMs).toBeGreaterThanOrEqual(20 * 60_000);
      expect(byJob.snapshot).toMatchObject({ status: 'completed', dryRun: true, stalled: null });

      const table = await runCli(['status'], { ...env, LOG_LEVEL: 'warn', RUN_STALL_AFTER_SECONDS: '600' });
      expect(table.stdout).toMatch(/reconcile .* running, STALLED: no progress for 20m \d+s, since .* \(pid 5120 on worker-1\)/);
      expect(table.stdout).toMatch(/snapshot .* completed \(dry run\)/);

      // Below the threshold: running, not stalled.
      const calm = await runCli(['status', '--json'], { ...env, LOG_LEVEL: 'warn', RUN_STALL_AFTER_SECONDS: '3600' });
      expect(JSON.parse(calm.stdout).jobs.find((j: { job: string }) => j.job === 'reconcile').lastRun.stalled).toBeNull();
    });
  },
);
