import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
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
      },
    ],
    openAlerts: [
      { id: '5', kind: 'mismatch', title: '4 mismatches in run 1', status: 'pending', createdAt: NOW, attempts: 1, lastError: null },
    ],
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

describe('payrecon status against a database', () => {
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
