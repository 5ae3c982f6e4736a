import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Unit first would leave a worker idle at the end while the other finishes a slow e2e file.
const RANK: Record<string, number> = { e2e: 0, database: 1, unit: 2 };

/**
 * The three projects share one pool of workers, and the longest files start first, so the workers
 * finish together. vitest's own order (failed first, then longest by the last run's timings in its
 * cache) when every file has a timing; otherwise (a fresh clone, CI, new files) e2e files first
 * (processes and browsers: seconds each), then database, then unit (milliseconds), each in vitest's order.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = files.every((f) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${path.relative(this.ctx.config.root, f.moduleId)}`),
    );
    return timed ? sorted : sorted.sort((a, b) => (RANK[a.project.name] ?? 3) - (RANK[b.project.name] ?? 3));
  }
}
