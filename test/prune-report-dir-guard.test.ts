/**
 * Issue 35, items 2 and 9: `payrecon prune` removes a superseded version's folder only under its own
 * REPORT_DIR (the version's path relative to it, sql/039), never the absolute path recorded, and only
 * when REPORT_DIR's marker names this database's installation. A half-written archive zip of a killed
 * prune is removed by the next one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/log/logger.ts';
import { runPrune, type PruneOptions } from '../src/prune/run-prune.ts';
import { writeReports, type WriteReportsResult } from '../src/report/write-reports.ts';
import { OWNER_FILE } from '../src/report/report-dir-owner.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { DAY, daysAgo, world } from './helpers/prune-world.ts';

const NOW = new Date();
const CUTOFF = daysAgo(NOW, 400);
let t: TestDatabase;
let tmp: string;
let nextDay = 0;
const oldDay = () =>
  daysAgo(NOW, 600 + nextDay++)
    .toISOString()
    .slice(0, 10);
const mkdir = (name: string) => fs.mkdirSync(path.join(tmp, name), { recursive: true }) ?? path.join(tmp, name);

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-h35-prune-guard-'));
  t = await createTestDatabase('h35_prune_guard', { engine: 'postgres' });
}, 60_000);
afterAll(async () => {
  await t?.drop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const prune = (reportDir: string, over: Partial<PruneOptions> = {}) =>
  runPrune({ db: t.db, logger: silentLogger, cutoff: CUTOFF, dryRun: false, batchSize: 5000, lockTimeoutMs: 2000, reportDir, ...over });

/** Two versions of an old day written to `reportDir`: v1 is superseded and past the retention. */
async function twoVersions(reportDir: string): Promise<WriteReportsResult[]> {
  const date = oldDay();
  const w = world(t.db.knex);
  const at = new Date(`${date}T10:00:00Z`);
  await w.check(await w.order('payment', at), new Date(at.getTime() + 60_000));
  const start = Date.parse(date) + DAY + 3_600_000;
  const out: WriteReportsResult[] = [];
  for (let i = 0; i < 2; i++)
    out.push(await writeReports(t.db, { date, timezone: 'UTC', reportDir, now: new Date(start + i * 60_000), force: true }));
  return out;
}

describe.skipIf(requiresServer('prune runs on Postgres'))('prune and REPORT_DIR', () => {
  it("a copy of the database pruning with its own REPORT_DIR never deletes the original installation's folders", async () => {
    const original = mkdir('production-reports');
    const [v1, v2] = await twoVersions(original);
    // The copy's own folder: no report of it was written there yet (no marker).
    const staging = mkdir('staging-reports');
    const r = await prune(staging);
    expect(fs.existsSync(v1.directory)).toBe(true);
    expect(fs.existsSync(v2.directory)).toBe(true);
    expect(r.reportVersions).toEqual([]);
    expect(r.reportVersionsRefused).toMatch(/report versions not pruned: .*staging-reports has no \.payrecon-database\.json/);
    // Nothing was recorded as removed either: the versions stay as they were.
    const [row] = (await t.db.knex('report_versions').where({ id: v1.record.id }).select('removed_at')) as Array<{
      removed_at: Date | null;
    }>;
    expect(row.removed_at).toBeNull();
  });

  it('a REPORT_DIR marked by another installation is refused before anything is deleted', async () => {
    const elsewhere = mkdir('other-installation');
    fs.writeFileSync(
      path.join(elsewhere, OWNER_FILE),
      JSON.stringify({ installationId: '00000000-0000-4000-8000-000000000001', database: 'another', markedAt: NOW.toISOString() }),
    );
    const r = await prune(elsewhere);
    expect(r.reportVersionsRefused).toMatch(/holds the reports of another installation \(00000000-0000-4000-8000-000000000001/);
    expect(r.reportVersions).toEqual([]);
  });

  it('a moved REPORT_DIR (this installation): the versions are removed under it, resolved from their relative path', async () => {
    const before = mkdir('before-move');
    const [v1, v2] = await twoVersions(before);
    const after = path.join(tmp, 'after-move');
    fs.cpSync(before, after, { recursive: true });
    const r = await prune(after);
    expect(r.reportVersionsRefused).toBeNull();
    const rel = path.relative(before, v1.directory);
    expect(r.reportVersions.map((v) => v.directory)).toContain(path.join(after, rel));
    expect(fs.existsSync(path.join(after, rel))).toBe(false);
    expect(fs.existsSync(path.join(after, path.relative(before, v2.directory)))).toBe(true);
    // The folder the rows were written to is not this REPORT_DIR: it is left alone.
    expect(fs.existsSync(v1.directory)).toBe(true);
  });

  it("a killed prune's half-written archive zip is removed by the next prune", async () => {
    const reportDir = mkdir('with-archive');
    await twoVersions(reportDir);
    const archiveDir = mkdir('archive');
    const leftover = path.join(archiveDir, 'report_versions', '2024-01', '2024-01-05-v1.zip.tmp-4242');
    fs.mkdirSync(path.dirname(leftover), { recursive: true });
    fs.writeFileSync(leftover, 'PK half a zip');
    const keep = path.join(archiveDir, 'report_versions', '2024-01', '2024-01-05-v1.zip');
    fs.writeFileSync(keep, 'a whole zip of an earlier prune');
    const r = await prune(reportDir, { archiveDir });
    expect(r.reportVersions.length).toBeGreaterThan(0);
    expect(fs.existsSync(leftover)).toBe(false);
    expect(fs.existsSync(keep)).toBe(true);
    expect(
      fs
        .readdirSync(archiveDir, { recursive: true })
        .map(String)
        .filter((f) => /\.tmp-/.test(f)),
    ).toEqual([]);
  });
});
