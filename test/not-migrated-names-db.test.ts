import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';

describe('"not migrated" names the database it looked at and how to fix it', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-cron-')));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("under cron's empty environment: the embedded database by its absolute path, and that DATABASE_URL is not set", async () => {
    const res = await runCli(['status'], {}, dir);
    expect(res.code).toBe(3);
    // The count grows with every migration; the first and the last are shown.
    expect(res.stderr).toContain(`payrecon: embedded PGlite at ${path.join(dir, '.data/pglite')} is not migrated (`);
    expect(res.stderr).toMatch(
      / is not migrated \(\d+ pending: 001_orders_and_runs\.sql … \d{3}_\w+\.sql\); run `payrecon migrate` first\./,
    );
    expect(res.stderr).toContain(
      'DATABASE_URL is not set, so payrecon looked at its embedded database: if you meant your Postgres, set DATABASE_URL (in the environment, or in a .env file in the working directory) instead of migrating this one.',
    );
  });

  describe.skipIf(requiresServer('an unmigrated Postgres database named in the message'))('on Postgres', () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase('unmigrated_named', { migrate: false });
    });
    afterAll(() => t?.drop());

    it('names user, host, port, database and schema, never the password', async () => {
      const u = new URL(t.url!);
      const res = await runCli(['status'], { DATABASE_URL: t.url! }, dir);
      expect(res.code).toBe(3);
      expect(res.stderr).toContain(
        `payrecon: postgres ${u.username}@${u.hostname}:${u.port || '5432'}${u.pathname}, schema payrecon is not migrated (`,
      );
      expect(res.stderr).toContain('If this is not the database you meant, fix DATABASE_URL');
    });
  });
});
