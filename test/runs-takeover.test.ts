// Issue 40: `payrecon status` said "interrupted: stopped by a signal; the next run resumes it" while that
// next run was resuming it. A run taken over is running again, without the old error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { createRun, finishRun, lastRuns, takeOverRun } from '../src/db/runs.ts';
import { buildStatus } from '../src/status/build.ts';
import { renderStatus } from '../src/status/render.ts';
import { schedulesFromConfig } from '../src/schedule/schedules.ts';

describe('a resumed run', () => {
  let t: TestDatabase;
  beforeAll(async () => void (t = await createTestDatabase('runs_takeover')));
  afterAll(() => t?.drop());

  it('is running again, its interruption no longer reported', async () => {
    const now = new Date('2026-11-27T10:00:00Z');
    const run = await createRun(t.db.knex, 'reconcile', {}, { dryRun: false, now });
    await finishRun(t.db.knex, run.id, 'interrupted', undefined, 'stopped by a signal; the next run resumes it', now);
    await takeOverRun(t.db.knex, run.id, new Date(now.getTime() + 60_000), { pid: process.pid, host: 'here' });
    const [row] = (await lastRuns(t.db.knex)).filter((r) => r.job === 'reconcile');
    expect(row).toMatchObject({ id: run.id, status: 'running', error: null, finishedAt: null });
    const status = buildStatus({
      now: new Date(now.getTime() + 90_000),
      timezone: 'UTC',
      schedules: schedulesFromConfig(t.config),
      lastRuns: [row],
      pendingEmails: [],
      openAlerts: [],
      stallAfterMs: 600_000,
    });
    expect(renderStatus(status)).not.toMatch(/interrupted|resumes it/);
  });
});
