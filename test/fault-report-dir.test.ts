/**
 * The report directory missing, not a directory, and a write failing half-way through a file.
 * Disk full (ENOSPC) cannot be produced here without mounting a tiny file system, which these tests
 * must not do; the stand-in is RLIMIT_FSIZE (`ulimit -f`) on the child process: the kernel fails the
 * write that crosses the limit with EFBIG, the same "a write failed mid-file" path as ENOSPC.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { BIN, ROOT, runCli, type CliResult } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { loadActiveBankCodes } from '../src/db/bank-codes.ts';
import { silentLogger } from '../src/log/logger.ts';

/** `payrecon <args>` with a file-size limit in KiB (bash's ulimit -f unit). */
function runCliWithFileLimit(kib: number, args: string[], env: Record<string, string>): Promise<CliResult> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('bash', ['-c', `ulimit -f ${kib} && exec ${quoted}`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const p = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, p)] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
  }
  return out;
}

// payrecon processes beside the test's own open database: PGlite serves one at a time.
describe.skipIf(requiresServer("the report runs as a process beside the test's open database"))('report directory faults', () => {
  let world: World;
  let root: string;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-report-faults-'));
    world = await createWorld('fault_report_dir', { env: { LOG_LEVEL: 'warn', REPORT_TIMEZONE: 'UTC' } });
    await seedMerchant(world.t.db.knex, world.client, { payments: 150, payouts: 50, seed: 51 });
    await world.control.advanceClock(2_000);
    await reconcile(
      {
        db: world.t.db,
        fetcher: world.client,
        policy: policyFromConfig(world.config, await loadActiveBankCodes(world.t.db.knex)),
        clock: () => new Date(),
        logger: silentLogger,
        concurrency: 8,
        batchSize: 50,
      },
      { selection: buildSelection({ date: today }, { now: new Date(), zone: 'UTC', lookbackDays: 30 }), dryRun: false },
    );
  });
  afterAll(async () => {
    await world?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const versionsOf = () => world.t.db.knex('report_versions').where({ business_date: today }).orderBy('version').pluck('version');

  it('a missing REPORT_DIR (several levels) is created', async () => {
    const dir = path.join(root, 'missing', 'deeper', 'reports');
    const r = await runCli(['report', '--date', today, '--json'], { ...world.env, REPORT_DIR: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, today, 'CURRENT'), 'utf8')).toBe('v1\n');
    expect(JSON.parse(r.stdout).manifest.files['items.csv'].rows).toBe(200);
  });

  it('a regular file where the directory should be: a clear error naming it, exit 2, earlier reports untouched', async () => {
    const dir = path.join(root, 'blocked');
    const first = await runCli(['report', '--date', '2026-01-01', '--json'], { ...world.env, REPORT_DIR: dir });
    expect(first.code, first.stderr).toBe(0);
    const before = hashTree(dir);
    fs.writeFileSync(path.join(dir, today), 'not a directory');
    const r = await runCli(['report', '--date', today], { ...world.env, REPORT_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(path.join(dir, today));
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(hashTree(dir)).toEqual({ ...before, [today]: crypto.createHash('sha256').update('not a directory').digest('hex') });
  });

  // With PGlite the limit would also bind the embedded database's own files, failing before any report write.
  it.skipIf(requiresServer('a file-size limit on the report process needs the database in another process (a Postgres server)'))(
    'a write failing mid-file (EFBIG via ulimit -f, the stand-in for a full disk): clear error, no new version, the previous one untouched',
    async () => {
      const dir = path.join(root, 'full');
      const env = { ...world.env, REPORT_DIR: dir };
      const first = await runCli(['report', '--date', today, '--json'], env);
      expect(first.code, first.stderr).toBe(0);
      const v = `v${JSON.parse(first.stdout).version}`; // numbers are per date in the database, across directories
      const items = fs.statSync(path.join(dir, today, v, 'items.csv')).size;
      expect(items).toBeGreaterThan(32 * 1024); // larger than the limit below, so the write crosses it
      const before = hashTree(dir);
      const recordedBefore = await versionsOf();

      const r = await runCliWithFileLimit(16, ['report', '--date', today, '--force'], env);
      expect(r.signal).toBeNull(); // SIGXFSZ is not fatal to node: the write returns EFBIG
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/EFBIG|file too large/i);
      expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);

      expect(hashTree(dir)).toEqual(before); // the previous version and CURRENT byte for byte, and no temp directory left
      expect(fs.readdirSync(path.join(dir, today)).sort()).toEqual(['CURRENT', v]);
      expect(await versionsOf()).toEqual(recordedBefore);

      // Space back: the next run writes the next version normally.
      const again = await runCli(['report', '--date', today, '--force', '--json'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).version).toBe(Number(v.slice(1)) + 1);
    },
  );
});
