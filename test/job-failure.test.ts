// Failure output of every job (withJob): one line naming the job and the database, never the
// password, no stack trace; one JSON object with --json; exit 2; a run_failed alert where the database answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, requiresServer, TEST_DATABASE_URL, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { withJob } from '../src/runtime/with-job.ts';
import { JobFailedError, oneLine } from '../src/runtime/job-failure.ts';
import { loadConfig } from '../src/config/config.ts';
import { ConfigError } from '../src/config/errors.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { silentLogger } from '../src/log/logger.ts';

const PASSWORD = 'Sup3rS3cretPW';
const withUrl = (patch: (u: URL) => void): string => {
  const u = new URL(TEST_DATABASE_URL);
  u.password = PASSWORD;
  patch(u);
  return u.toString();
};

/** stderr without the JSON log line saying which database the command uses (stderr is not a TTY here). */
const failureLines = (stderr: string) => stderr.split('\n').filter((l) => l && !l.startsWith('{'));
const databaseLogged = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; database?: string })
    .find((l) => l.msg === 'database')?.database;

describe.skipIf(requiresServer('connects to a missing database, a closed port and an unknown role'))(
  'a database that cannot be used',
  () => {
    const cases: Array<[string, string, RegExp]> = [
      ['a missing database', withUrl((u) => (u.pathname = '/nc_missing_db')), /127\.0\.0\.1:\d+\/nc_missing_db.*does not exist/],
      ['a wrong port', withUrl((u) => (u.port = '1')), /127\.0\.0\.1:1\/.*ECONNREFUSED/],
      ['a wrong user', withUrl((u) => (u.username = 'nc_nobody')), /nc_nobody@127\.0\.0\.1.*role "nc_nobody" does not exist/],
    ];
    for (const [what, url, named] of cases) {
      it(`${what}: says which database, then fails with one line and exit 2, no stack, no password`, async () => {
        const r = await runCli(['status'], { DATABASE_URL: url });
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(databaseLogged(r.stderr)).toMatch(/^postgres .*@127\.0\.0\.1:\d+\//);
        const lines = failureLines(r.stderr);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^payrecon: status failed \(database: postgres /);
        expect(lines[0]).toMatch(named);
        expect(r.stderr + r.stdout).not.toContain(PASSWORD);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      });
    }

    it('with --json: exactly one JSON object on stdout naming the job and database', async () => {
      const r = await runCli(['reconcile', '--json'], { DATABASE_URL: withUrl((u) => (u.pathname = '/nc_missing_db')) });
      expect(r.code).toBe(2);
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(out).toMatchObject({ exitCode: 2, job: 'reconcile' });
      expect(out.database).toMatch(/127\.0\.0\.1:\d+\/nc_missing_db/);
      expect(r.stdout).not.toContain(PASSWORD);
      expect(failureLines(r.stderr)).toEqual([]);
    });
  },
);

describe('inside a job', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('job_failure');
  });
  afterAll(() => t.drop());

  it('an unexpected error becomes JobFailedError (exit 2, first line only) and stores a run_failed alert', async () => {
    const failing = withJob('reconcile', { config: t.config, db: t.db, logger: silentLogger }, async () => {
      throw new Error('connection terminated unexpectedly\n    at Some.stack (file.ts:1:1)');
    });
    const err = await failing.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobFailedError);
    expect((err as JobFailedError).exitCode).toBe(2);
    expect((err as Error).message).toMatch(/^reconcile failed \(database: .*\): connection terminated unexpectedly$/);
    const alerts = await t.db.knex('alerts').where({ kind: 'run_failed' }).select('title', 'payload');
    expect(alerts).toHaveLength(1);
    expect(alerts[0].title).toBe('reconcile: the run failed');
  });

  it.skipIf(requiresServer('a query timeout on a real Postgres connection'))(
    'a query that times out: the one line gives the cause (timeout), not the SQL or its values',
    async () => {
      const config = loadConfig({ DATABASE_URL: t.url!, DATABASE_QUERY_TIMEOUT_MS: '200', LOG_LEVEL: 'silent' });
      const err = await withJob('status', { config, logger: silentLogger }, async ({ db }) => {
        await db.knex.raw('select i.merchant_ref, pg_sleep(5) from (select ?::text as merchant_ref) i', ['ORD-VALUE-77']);
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JobFailedError);
      const reason = (err as JobFailedError).reason;
      expect(reason).toMatch(/timeout/i);
      expect(reason).not.toMatch(/select|merchant_ref|pg_sleep|ORD-VALUE-77/i);
    },
  );

  it('a knex error whose message is "<SQL> - <cause>", over several lines: the cause only', () => {
    const err = Object.assign(
      new Error('SELECT i.merchant_ref,\n  i.amount FROM payment_orders i WHERE i.ref = $1 - Connection terminated unexpectedly'),
      {},
    );
    expect(oneLine(err, [])).toBe('Connection terminated unexpectedly');
    const refused = Object.assign(new Error('update job_runs set status = $1 - connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(oneLine(refused, [])).toBe('connect ECONNREFUSED 127.0.0.1:1');
    // Not SQL: left alone, including a " - " of its own.
    expect(oneLine(new Error('provider answered 503 - try later'), [])).toBe('provider answered 503 - try later');
  });

  it.skipIf(requiresServer('counts the connections left open by the job'))(
    'a missing PROVIDER_BASE_URL is a configuration error (exit 3) and leaves no connection open',
    async () => {
      const config = loadConfig({ DATABASE_URL: t.url!, PROVIDER_BASE_URL: '' });
      const err = await reconcileJob({ progress: false }, { config, logger: silentLogger }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain('PROVIDER_BASE_URL: not set');
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        const { rows } = await client.query(
          "select count(*)::int as n from pg_stat_activity where application_name = 'payrecon-reconcile' and datname = $1",
          [new URL(t.url!).pathname.slice(1)],
        );
        expect(rows[0].n).toBe(0);
      } finally {
        await client.end();
      }
    },
  );
});
