import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { findUserByName } from '../src/db/console-users.ts';
import { claimNextRerun, enqueueRerun, finishRerun } from '../src/db/console-reruns.ts';

let t: TestDatabase;
let app: FastifyInstance;
let failedRerun: string;
const clock = new FixedClock(new Date('2026-11-22T10:07:00Z'));

beforeAll(async () => {
  t = await createTestDatabase('console_jobs');
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance' });
  const fiona = (await findUserByName(t.db.knex, 'fiona'))!;
  failedRerun = (await enqueueRerun(t.db.knex, { businessDate: '2026-11-20', userId: fiona.id, now: clock.now() })).id;
  await claimNextRerun(t.db.knex, clock.now());
  await finishRerun(t.db.knex, failedRerun, {
    state: 'failed',
    reconcileRunIds: [],
    reportVersion: null,
    error: 'provider unavailable after 5 attempts',
    now: clock.now(),
  });
  // The same finding alerted three times (one fingerprint), with the cases behind it; another alert apart.
  for (const [i, ids] of [['1'], ['1', '2'], ['2', '3']].entries())
    await t.db.knex('alerts').insert({
      fingerprint: 'fp-fee',
      kind: 'mismatch',
      title: `FEE mismatches (${i + 1})`,
      payload: {},
      created_at: new Date(clock.t.getTime() - (3 - i) * 60_000),
      status: 'sent',
      case_ids: ids,
    });
  await t.db
    .knex('alerts')
    .insert({ fingerprint: 'fp-job', kind: 'job-failed', title: 'reconcile failed', payload: {}, created_at: clock.now() });
  app = await buildTestConsole(t, clock);
});
afterAll(async () => {
  await app?.close();
  await t?.drop();
});

describe('the jobs page', () => {
  it('says cron in words, and shows no next time while no scheduler runs', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const body = (await agent.get('/jobs')).body;
    expect(body).toContain('every 15 minutes');
    expect(body).toContain('daily at 06:00');
    expect(body).not.toContain('<code>*/15 * * * *</code>');
    expect(body).toContain('No scheduler seems to be running');
    expect(body).not.toContain('2026-11-22 10:15');
  });

  it('shows next times once the scheduler ran a job at its last tick', async () => {
    await t.db.knex('job_runs').insert({
      job: 'reconcile',
      status: 'completed',
      started_at: new Date('2026-11-22T10:00:01Z'),
      heartbeat_at: new Date('2026-11-22T10:00:09Z'),
      finished_at: new Date('2026-11-22T10:00:09Z'),
    });
    try {
      const agent = new Agent(app);
      await agent.login('vera');
      const body = (await agent.get('/jobs')).body;
      expect(body).not.toContain('No scheduler seems to be running');
      expect(body).toContain('2026-11-22 10:15');
    } finally {
      await t.db.knex('job_runs').where({ job: 'reconcile' }).delete();
    }
  });

  it('lists a failed console rerun among failures, linked', async () => {
    const agent = new Agent(app);
    await agent.login('vera');
    const body = (await agent.get('/jobs')).body;
    expect(body).toContain(`<a href="/reruns/${failedRerun}">#${failedRerun}</a>`);
    expect(body).toContain('provider unavailable after 5 attempts');
  });

  it('merges duplicate open alerts into one row with a count, and links their cases', async () => {
    const agent = new Agent(app);
    await agent.login('fiona');
    const body = (await agent.get('/jobs')).body;
    expect(body).toContain('FEE mismatches (3)');
    expect(body).not.toContain('FEE mismatches (1)');
    expect(body).toMatch(/<td class="num">3<\/td>\s*<td class="wrap">FEE mismatches \(3\)<\/td>/);
    for (const id of ['1', '2', '3']) expect(body).toContain(`<a href="/cases/${id}">#${id}</a>`);
    expect(body).toContain('reconcile failed');
  });
});
