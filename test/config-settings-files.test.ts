/**
 * Issue 35, items 10 and 11: the settings files (JOURNAL_ACCOUNTS_FILE, FEE_SCHEDULE_FILE, .env).
 * A key given twice is refused naming the key and both lines (JSON.parse would keep the last silently);
 * only a regular file of bounded size is read: a FIFO or /dev/zero is refused at once, not waited on.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { ConfigError } from '../src/config/errors.ts';
import { SETTINGS_FILE_MAX_BYTES } from '../src/config/settings-file.ts';
import { startCli } from './helpers/cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-h35-settings-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const problems = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.join('\n');
    throw err;
  }
  throw new Error('expected a configuration error');
};

describe('settings files', () => {
  it('a chart of accounts with a key given twice is refused, naming the key and both lines', () => {
    const file = write(
      'accounts-dup.json',
      [
        '{',
        '  "wallet": {"code": "1210", "name": "Provider wallet"},',
        '  "fees": {"code": "6110", "name": "Fees"},',
        '  "wallet": {"code": "1299", "name": "Typo"}',
        '}',
      ].join('\n'),
    );
    expect(problems({ JOURNAL_ACCOUNTS_FILE: file })).toMatch(/JOURNAL_ACCOUNTS_FILE: .*key "wallet" is given twice, on line 2 and line 4/);
  });

  it('a duplicate inside a nested object (fee schedule), and one spelt with an escape, are refused too', () => {
    const fees = write(
      'fees-dup.json',
      '{"INR": {"payment": {\n"UPI": {"percent": "1", "fixed": "0"},\n"UPI": {"percent": "2", "fixed": "0"}}}}',
    );
    expect(problems({ FEE_SCHEDULE_FILE: fees })).toMatch(/key "UPI" in "INR.payment" is given twice, on line 2 and line 3/);
    const escaped = write('accounts-escaped.json', '{"wallet": {"code": "1", "name": "a"},\n"wa\\u006clet": {"code": "2", "name": "b"}}');
    expect(problems({ JOURNAL_ACCOUNTS_FILE: escaped })).toMatch(/key "wallet" is given twice, on line 1 and line 2/);
    // The same name in two different objects is not a duplicate.
    const fine = write(
      'fees-fine.json',
      '{"INR": {"payment": {"UPI": {"percent": "1", "fixed": "0"}}, "payout": {"UPI": {"percent": "1", "fixed": "0"}}}}',
    );
    expect(loadConfig({ FEE_SCHEDULE_FILE: fine }).FEE_SCHEDULE_FILE).toHaveProperty('INR.payout.UPI.percent', '1');
  });

  it('a file over the size limit, and a directory, are refused with what was found', () => {
    const big = write('big.json', `{"wallet": {"code": "1", "name": "${'x'.repeat(SETTINGS_FILE_MAX_BYTES)}"}}`);
    expect(problems({ JOURNAL_ACCOUNTS_FILE: big })).toMatch(
      /JOURNAL_ACCOUNTS_FILE: cannot read .*big\.json: \d+ bytes, more than the 1048576/,
    );
    expect(problems({ FEE_SCHEDULE_FILE: dir })).toMatch(/FEE_SCHEDULE_FILE: cannot read .*: not a regular file \(a directory\)/);
    expect(problems({ JOURNAL_BASE_CURRENCY: 'USD', JOURNAL_RATES_FILE: dir })).toMatch(
      /JOURNAL_RATES_FILE: cannot read .*not a regular file \(a directory\)/,
    );
  });

  // In a process of its own: before the fix the read blocks the whole process (a FIFO with no writer)
  // or never ends (/dev/zero), which would take the test worker with it.
  it.each([
    [
      'a FIFO',
      () => {
        const fifo = path.join(dir, 'accounts-fifo');
        execFileSync('mkfifo', [fifo]);
        return fifo;
      },
      /not a regular file \(a FIFO\)/,
    ],
    ['/dev/zero', () => '/dev/zero', /not a regular file \(a character device\)/],
  ])(
    'JOURNAL_ACCOUNTS_FILE pointing at %s: `payrecon report` says so and exits 3',
    async (_name, target, message) => {
      const { child, done } = startCli(['report', '--date', '2026-11-20'], {
        JOURNAL_ACCOUNTS_FILE: target(),
        PGLITE_DIR: path.join(dir, 'pglite'),
      });
      try {
        const res = await done;
        expect(res.code, res.stderr).toBe(3);
        expect(res.stderr).toMatch(/JOURNAL_ACCOUNTS_FILE/);
        expect(res.stderr).toMatch(message);
      } finally {
        child.kill('SIGKILL');
      }
    },
    120_000,
  );

  it('a .env that is a FIFO: refused, not waited on', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'cwd-'));
    execFileSync('mkfifo', [path.join(cwd, '.env')]);
    const { child, done } = startCli(['report', '--date', '2026-11-20'], { PGLITE_DIR: path.join(dir, 'pglite') }, cwd);
    try {
      const res = await done;
      expect(res.code, res.stderr).toBe(3);
      expect(res.stderr).toMatch(/\.env: not a regular file \(a FIFO\)/);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
