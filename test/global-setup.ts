import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Every temporary directory a test makes (os.tmpdir() reads TMPDIR) lands under one root for the
 * run, removed when the run ends, passed or failed: no test leaves files behind in /tmp.
 */
export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-tests-'));
  process.env.TMPDIR = root;
  return () => fs.rmSync(root, { recursive: true, force: true });
}
