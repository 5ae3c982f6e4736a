import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { reportJob } from '../src/services/report.ts';
import { OWNER_FILE, ReportDirOwnedError } from '../src/report/report-dir-owner.ts';
import { versionsOnDisk } from '../src/report/version-dir.ts';
import { installationId } from '../src/db/installation.ts';

const DATE = '2026-03-01';
const now = () => new Date('2026-03-05T00:00:00Z');

describe('one REPORT_DIR, one database', () => {
  let dir: string;
  let a: TestDatabase;
  let b: TestDatabase;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-owner-'));
    a = await createTestDatabase('owner_a', { env: { REPORT_DIR: dir } });
    b = await createTestDatabase('owner_b', { env: { REPORT_DIR: dir } });
  });
  afterAll(async () => {
    await a?.drop();
    await b?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the first database marks the folder; a second one is refused before it writes anything; the first goes on', async () => {
    const first = await reportJob({ date: DATE, now }, { config: a.config, db: a.db });
    expect(first.report.version).toBe(1);
    const marker = JSON.parse(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    expect(marker).toMatchObject({ installationId: await installationId(a.db.knex), markedAt: '2026-03-05T00:00:00.000Z' });
    expect(marker.database).toMatch(/^(postgres .*payrecon_t_owner_a_|embedded PGlite at )/);

    const refused = reportJob({ date: DATE, now }, { config: b.config, db: b.db });
    await expect(refused).rejects.toThrow(ReportDirOwnedError);
    await expect(refused).rejects.toThrow(`REPORT_DIR ${path.resolve(dir)} holds the reports of another database (`);
    await expect(refused).rejects.toThrow('Two databases in one folder would interleave their version numbers, so nothing was written.');
    await expect(refused).rejects.toMatchObject({ exitCode: 3 });
    expect(await versionsOnDisk(path.join(dir, DATE))).toEqual([1]);
    expect(fs.readdirSync(dir).sort()).toEqual([OWNER_FILE, DATE].sort());

    const again = await reportJob({ date: DATE, now, force: true }, { config: a.config, db: a.db });
    expect(again.report.version).toBe(2);
  });
});

describe('the demo keeps its reports in a folder of its own', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-demo-dir-')));
    // A real installation's reports beside the demo's: never touched.
    fs.mkdirSync(path.join(dir, 'reports', '2026-01-02', 'v1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'reports', OWNER_FILE), '{"installationId":"00000000-0000-4000-8000-000000000000"}\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs on a fresh database, starting REPORT_DIR/demo afresh, leaving the rest alone', async () => {
    // One run against what an earlier demo run leaves behind (its database folder, its reports folder
    // with its marker and a version), instead of two whole runs: the same check for half the work.
    const dataDir = path.join(dir, 'demo-db');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'left-by-an-earlier-run'), '');
    const earlier = path.join(dir, 'reports', 'demo');
    fs.mkdirSync(path.join(earlier, '2026-01-01', 'v1'), { recursive: true });
    fs.writeFileSync(path.join(earlier, '.payrecon-demo'), 'reports of `payrecon demo`\n');
    // An embedded database of the demo's own: no DATABASE_URL, so the run recreates it.
    const res = await runCli(
      ['demo', '--payments', '40', '--payouts', '20', '--data-dir', dataDir],
      { REPORT_DIR: path.join(dir, 'reports') },
      dir,
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/database {2}embedded PGlite at \S+ \(fresh\)/);
    expect(res.stdout).toMatch(/reports for \d{4}-\d{2}-\d{2} \(version 1\):\n {2}reports\/demo\/\d{4}-\d{2}-\d{2}\/v1\//);
    // Nothing between the demo's tables: its missing alert channel is by design, not a warning (issue 40).
    expect(res.stderr).toBe('');
    expect(fs.existsSync(path.join(dataDir, 'left-by-an-earlier-run'))).toBe(false);
    expect(fs.readdirSync(path.join(dir, 'reports')).sort()).toEqual([OWNER_FILE, '2026-01-02', 'demo'].sort());
    expect(fs.readFileSync(path.join(dir, 'reports', OWNER_FILE), 'utf8')).toContain('00000000-0000-4000-8000-000000000000');
    const days = fs.readdirSync(earlier).filter((n) => /^\d{4}-/.test(n));
    expect(days).toHaveLength(1);
    expect(days[0]).not.toBe('2026-01-01');
    expect(fs.readdirSync(path.join(earlier, days[0])).filter((n) => n.startsWith('v'))).toEqual(['v1']);
    // One whole demo, ~9 s of CPU (PGlite start and migrations, the pipeline; 40+20 orders and 6+3 took the
    // same). Two of them measured 69 s at load average 19 and 91 s at 38 on 2 cores (2026-11-27), and
    // timed out at 240 s beside the static gates: one run leaves the same limit twice the room.
  }, 240_000);
});
