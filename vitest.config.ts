import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testFilesByProject } from './test/projects.ts';
import LongestFirst from './test/sequencer.ts';

/** [flag] when this node accepts the V8 flag (an unknown one stops node at start), else []. */
function v8FlagIfKnown(flag: string): string[] {
  return spawnSync(process.execPath, [flag, '-e', ''], { stdio: 'ignore' }).status === 0 ? [flag] : [];
}

const files = testFilesByProject(fileURLToPath(new URL('.', import.meta.url)));
const shared = { testTimeout: 60_000, hookTimeout: 60_000 };

/**
 * Three projects (`vitest run --project unit` runs one): unit (no database, no child process),
 * database, e2e (processes and browsers); test/projects.ts sorts the files by what they import.
 * They run side by side in one pool, longest files first (test/sequencer.ts): one after another,
 * the last slow e2e files ran with a worker idle.
 */
export default defineConfig({
  test: {
    // Two cores: database-heavy files run a couple at a time, each in its own database.
    maxWorkers: 2,
    minWorkers: 1,
    // PGlite's Postgres is a 10 MB WebAssembly module compiled afresh in each test file's worker; V8's
    // optimising tier then recompiles it in the background, work a few hundred queries never repay.
    // With the baseline compiler alone the workers' CPU fell from 258-309 s to 219-236 s a run (process
    // accounting, docs/performance/index.md); the laptop run on PGlite, 265 -> 203 s. Same answers.
    poolOptions: { forks: { execArgv: v8FlagIfKnown('--liftoff-only') } },
    sequence: { sequencer: LongestFirst },
    // The default output, then how many tests were skipped and why (test/skip-summary.ts).
    reporters: ['default', './test/skip-summary.ts'],
    projects: [
      {
        test: { ...shared, name: 'unit', include: files.unit, globalSetup: ['test/global-setup.ts'] },
      },
      {
        test: {
          ...shared,
          name: 'database',
          include: files.database,
          globalSetup: ['test/global-setup.ts', 'test/global-setup-db.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'e2e',
          include: files.e2e,
          globalSetup: ['test/global-setup.ts', 'test/global-setup-db.ts', 'test/global-setup-browser.ts'],
        },
      },
    ],
  },
});
