import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor, type CliResult } from './helpers/cli.ts';
import { DatabaseBusyError, LOCK_FILE, lockPgliteDir } from '../src/db/engine/pglite-dir-lock.ts';

// The embedded engine is one process's database: a second process opening the same directory
// corrupts it (duplicated unique keys, broken indexes). These tests run real child processes.
describe('one process at a time on a PGlite directory', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-pglite-lock-'));
    // The receiver never calls the provider here (nothing pending), but it needs an address.
    env = { DATABASE_URL: '', PGLITE_DIR: dir, LOG_LEVEL: 'silent', PROVIDER_BASE_URL: 'http://127.0.0.1:9' };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a second process fails fast, naming the directory and DATABASE_URL, while the first holds it', async () => {
    const holder = startCli(['webhook', 'serve', '--port', '0'], env);
    let out = '';
    holder.child.stdout!.on('data', (d) => (out += d));
    try {
      await waitFor(async () => out.includes('listening on'), 60_000);
      const second = await runCli(['status'], env);
      expect(second.code).toBe(3);
      expect(second.stderr).toContain(dir);
      expect(second.stderr).toContain('DATABASE_URL');
      expect(second.stderr).toContain(String(holder.child.pid));
      expect(second.stderr).not.toMatch(/\n\s+at /); // one message, no stack trace
    } finally {
      holder.child.kill('SIGTERM');
    }
    const stopped: CliResult = await holder.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    // The holder released the directory on its way out: the next process opens it.
    const after = await runCli(['status'], env);
    expect(after.code, after.stderr).toBe(0);
  }, 120_000);

  it('a lock left by a killed process (its pid gone) is taken over', async () => {
    const holder = startCli(['webhook', 'serve', '--port', '0'], env);
    let out = '';
    holder.child.stdout!.on('data', (d) => (out += d));
    await waitFor(async () => out.includes('listening on'), 60_000);
    holder.child.kill('SIGKILL');
    await holder.done;
    const next = await runCli(['status'], env);
    expect(next.code, next.stderr).toBe(0);
  }, 120_000);

  it('two processes started together never both open the directory', async () => {
    const results = await Promise.all([0, 1, 2].map(() => runCli(['status', '--json'], env)));
    for (const r of results) {
      if (r.code !== 0) {
        expect(r.code).toBe(3);
        expect(JSON.parse(r.stdout).error).toContain('DATABASE_URL'); // --json: the failure is one JSON object
      }
    }
    expect(results.some((r) => r.code === 0)).toBe(true);
    // Whatever the interleaving, the database is intact afterwards.
    const check = await runCli(['status'], env);
    expect(check.code, check.stderr).toBe(0);
  }, 120_000);
});

describe('lockPgliteDir', () => {
  const fresh = () => fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-lockfile-'));
  const lockOf = (d: string) => path.join(d, LOCK_FILE);

  it('refuses a second open in the same process, and frees the directory on release', () => {
    const d = fresh();
    const release = lockPgliteDir(d);
    expect(() => lockPgliteDir(d)).toThrow(DatabaseBusyError);
    release();
    expect(fs.existsSync(lockOf(d))).toBe(false);
    lockPgliteDir(d)();
  });

  it('takes over a lock whose pid is gone, or is this process pid from an earlier life (a restarted container)', () => {
    for (const pid of [2 ** 22 + 12345, process.pid]) {
      const d = fresh();
      fs.writeFileSync(lockOf(d), `${pid}\n${os.hostname()}\n`);
      const release = lockPgliteDir(d);
      expect(fs.readFileSync(lockOf(d), 'utf8')).toBe(`${process.pid}\n${os.hostname()}\n`);
      release();
    }
  });

  it('treats a live pid, another host, and a just-created empty file as held', () => {
    const cases = [`${process.ppid}\n${os.hostname()}\n`, `${2 ** 22 + 12345}\nsome-other-host\n`, ''];
    for (const content of cases) {
      const d = fresh();
      fs.writeFileSync(lockOf(d), content);
      expect(() => lockPgliteDir(d), JSON.stringify(content)).toThrow(d);
      expect(fs.readFileSync(lockOf(d), 'utf8')).toBe(content);
    }
  });
});
