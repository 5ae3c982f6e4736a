import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testFilesByProject } from './test/projects.ts';

const files = testFilesByProject(fileURLToPath(new URL('.', import.meta.url)));
const shared = { testTimeout: 60_000, hookTimeout: 60_000 };

/**
 * Three projects, run one group after another so the fast files report first (`vitest run
 * --project unit` runs one): unit (no database, no child process), database, e2e (processes and
 * browsers). test/projects.ts sorts the files by what they import.
 */
export default defineConfig({
  test: {
    // Two cores: database-heavy files run a couple at a time, each in its own database.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        test: { ...shared, name: 'unit', include: files.unit, globalSetup: ['test/global-setup.ts'], sequence: { groupOrder: 0 } },
      },
      {
        test: {
          ...shared,
          name: 'database',
          include: files.database,
          globalSetup: ['test/global-setup.ts', 'test/global-setup-db.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: 'e2e',
          include: files.e2e,
          globalSetup: ['test/global-setup.ts', 'test/global-setup-db.ts'],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
