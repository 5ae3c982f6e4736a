import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

it('temporary directories go under the run root that the global teardown removes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-probe-'));
  expect(path.basename(path.dirname(dir))).toMatch(/^payrecon-tests-/);
  expect(fs.existsSync(path.dirname(dir))).toBe(true);
});
