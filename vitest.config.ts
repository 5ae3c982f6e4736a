import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: database-heavy files run a couple at a time, each in its own database.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
