// Logs: readable warnings at a terminal, JSON lines at info otherwise, either one when asked.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log/logger.ts';
import { textStream } from '../src/log/text-stream.ts';
import { BIN } from './helpers/cli.ts';
import { skipping } from './helpers/skips.ts';

const lines = (out: PassThrough) =>
  String(out.read() ?? '')
    .split('\n')
    .filter(Boolean);

describe('createLogger', () => {
  it('at a terminal: warn and above by default; elsewhere: info', () => {
    expect(createLogger({ tty: true, destination: new PassThrough() }).level).toBe('warn');
    expect(createLogger({ tty: false, destination: new PassThrough() }).level).toBe('info');
    expect(createLogger({ tty: true, level: 'debug', destination: new PassThrough() }).level).toBe('debug');
  });

  it('text lines name the level, the message and the fields, and keep secrets redacted', () => {
    const out = new PassThrough();
    const log = createLogger({ tty: true, level: 'info', destination: textStream(out) });
    log.warn({ runId: '7', secret: 'k3y', counts: { mismatch: 2 } }, 'some alerts could not be delivered');
    expect(lines(out)).toEqual(['payrecon warn: some alerts could not be delivered (runId=7, secret=[redacted], counts={"mismatch":2})']);
    log.error({ status: '\u001b[31mRED\u001b[0m' }, 'odd status');
    expect(lines(out)).toEqual(['payrecon error: odd status (status=\\u001b[31mRED\\u001b[0m)']);
  });
});

const script = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
describe.skipIf(!script && skipping('no `script` command to give the CLI a terminal', 'logs at a real terminal'))(
  'the CLI at a terminal',
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-tty-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('prints no JSON: the database line, then the failure as text', () => {
      // `script` gives the command a pseudo-terminal; an unmigrated embedded database makes it fail.
      const r = spawnSync('script', ['-qec', `${process.execPath} ${BIN} status`, '/dev/null'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', PGLITE_DIR: path.join(dir, 'pglite') },
        encoding: 'utf8',
      });
      const output = r.stdout.replace(/\r/g, '').split('\n').filter(Boolean);
      expect(r.status).toBe(3);
      expect(output[0]).toBe(`payrecon status: database embedded PGlite at ${path.join(dir, 'pglite')}`);
      expect(output.slice(1)).toEqual([expect.stringMatching(/^payrecon: embedded PGlite at .* is not migrated/)]);
    });
  },
);
