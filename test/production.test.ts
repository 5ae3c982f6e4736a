// What the Docker image relies on: NODE_ENV=production refuses the embedded database unless allowed,
// and `schedule --migrate` migrates an empty database before scheduling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemsOf } from './helpers/config.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { scheduleJob } from '../src/services/schedule.ts';
import { pendingMigrations } from '../src/db/migrate.ts';
import { silentLogger } from '../src/log/logger.ts';
import { loadConfig } from '../src/config/config.ts';

describe('NODE_ENV=production and the embedded database', () => {
  it('is refused without DATABASE_URL, naming both ways out', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^DATABASE_URL: not set, and NODE_ENV=production refuses the embedded PGlite/);
    expect(problems[0]).toContain('PGLITE_IN_PRODUCTION=true');
  });

  it('is allowed with PGLITE_IN_PRODUCTION=true, and never matters with DATABASE_URL or outside production', () => {
    expect(problemsOf({ NODE_ENV: 'production', PGLITE_IN_PRODUCTION: 'true' })).toEqual([]);
    expect(problemsOf({ NODE_ENV: 'production', DATABASE_URL: 'postgres://app@db/merchant' })).toEqual([]);
    expect(problemsOf({ NODE_ENV: 'development' })).toEqual([]);
    expect(problemsOf({})).toEqual([]);
  });

  it('PGLITE_IN_PRODUCTION takes true or false only', () => {
    expect(problemsOf({ PGLITE_IN_PRODUCTION: 'maybe' })).toEqual(['PGLITE_IN_PRODUCTION: expected true or false; got "maybe"']);
  });
});

describe('schedule --migrate', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('schedule_migrate', { migrate: false });
  });
  afterAll(() => t.drop());

  it('migrates an empty database first, then schedules and stops cleanly', async () => {
    expect((await pendingMigrations(t.db)).length).toBeGreaterThan(0);
    const config = loadConfig({
      ...envOf(t),
      SCHEDULE_RECONCILE: 'off',
      SCHEDULE_SNAPSHOT: 'off',
      SCHEDULE_BANK_CODES: 'off',
      SCHEDULE_DAILY: 'off',
    });
    const result = await scheduleJob(
      { migrate: true, noCatchUp: true, stopWhen: Promise.resolve('test') },
      { config, logger: silentLogger, db: t.db },
    );
    expect(result).toMatchObject({ exitCode: 0, finished: true });
    expect(await pendingMigrations(t.db)).toEqual([]);
  });
});

function envOf(t: TestDatabase): Record<string, string> {
  return t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR };
}
