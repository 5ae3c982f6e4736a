import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The run's root directory, for the workers (they inherit the environment set here). */
export const RUN_DIR_ENV = 'PAYRECON_TEST_RUN_DIR';

/**
 * Every temporary directory a test makes (os.tmpdir() reads TMPDIR) lands under one root for the
 * run, removed when the run ends, passed or failed: no test leaves files behind in /tmp.
 * Each vitest project runs this; the first one of the run makes the root.
 */
export default function setup(): () => void {
  if (process.env[RUN_DIR_ENV]) return () => undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-tests-'));
  process.env.TMPDIR = root;
  process.env[RUN_DIR_ENV] = root;
  return () => {
    fs.rmSync(root, { recursive: true, force: true });
    delete process.env[RUN_DIR_ENV];
  };
}
