import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.join(import.meta.dirname, '..', 'src');
const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

describe('exit statuses', () => {
  // printFailure reads the status from ExitStatusError alone: an exitCode field set any other way
  // (a class field, Object.assign on an Error) would silently exit 2 instead of the status meant.
  it('every error carrying an exit status is an ExitStatusError (src/domain/errors.ts), never an exitCode field set by hand', () => {
    const offenders = walk(SRC)
      .filter((f) => f.endsWith('.ts') && !f.endsWith(path.join('domain', 'errors.ts')))
      .flatMap((f) => {
        const text = fs.readFileSync(f, 'utf8');
        return /readonly exitCode\s*=|Object\.assign\([^;]*\{\s*exitCode:/s.test(text) ? [path.relative(SRC, f)] : [];
      });
    expect(offenders).toEqual([]);
  });
});
