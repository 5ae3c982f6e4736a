import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The run's root directory, for the workers (they inherit the environment set here). */
export const RUN_DIR_ENV = 'PAYRECON_TEST_RUN_DIR';

/** Where the run's root goes instead of the system's temporary directory, when set. */
const TEST_TMPDIR_ENV = 'PAYRECON_TEST_TMPDIR';

/** Memory-backed and shared by every process on Linux; in a container it may be 64 MB, too small. */
const RAM_DIR = '/dev/shm';
const RAM_DIR_MIN_FREE = 2 * 1024 ** 3;

/**
 * The parent of the run's root: PAYRECON_TEST_TMPDIR, else /dev/shm when it is a writable directory
 * with 2 GiB free, else os.tmpdir(). Tests copy a 40 MB, 1,154-file PGlite template per database and
 * write report versions with fsync: on this machine's disk a copy takes 650 ms, in memory 55 ms.
 * (A killed run's root stays in memory until removed or the machine restarts, as it stayed in /tmp.)
 */
function runRootParent(): string {
  const chosen = process.env[TEST_TMPDIR_ENV];
  if (chosen) return chosen;
  try {
    fs.accessSync(RAM_DIR, fs.constants.W_OK);
    const free = fs.statfsSync(RAM_DIR);
    if (free.bavail * free.bsize >= RAM_DIR_MIN_FREE) return RAM_DIR;
  } catch {
    // No /dev/shm (macOS, Windows) or not ours to write: the disk will do.
  }
  return os.tmpdir();
}

/**
 * Every temporary directory a test makes (os.tmpdir() reads TMPDIR) lands under one root for the
 * run, removed when the run ends, passed or failed: no test leaves files behind.
 * Each vitest project runs this; the first one of the run makes the root.
 */
export default function setup(): () => void {
  if (process.env[RUN_DIR_ENV]) return () => undefined;
  const root = fs.mkdtempSync(path.join(runRootParent(), 'payrecon-tests-'));
  process.env.TMPDIR = root;
  process.env[RUN_DIR_ENV] = root;
  return () => {
    fs.rmSync(root, { recursive: true, force: true });
    delete process.env[RUN_DIR_ENV];
  };
}
