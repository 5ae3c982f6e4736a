import pLimit from 'p-limit';

/**
 * Runs `work` over every element of each page with bounded concurrency, keeping up to `ahead`
 * pages in flight, and hands finished pages to `commit` strictly in page order. Ordered commits
 * keep the run's checkpoint contiguous (everything up to it is written), while read-ahead keeps
 * the concurrency limit saturated across page boundaries.
 */
export async function runOrderedPipeline<T, R>(
  pages: AsyncIterable<T[]>,
  work: (item: T) => Promise<R>,
  commit: (page: T[], results: R[]) => Promise<void>,
  opts: { concurrency: number; ahead?: number; shouldStop?: () => boolean },
): Promise<void> {
  const limit = pLimit(opts.concurrency);
  const ahead = Math.max(1, opts.ahead ?? 3);
  const inflight: Array<{ page: T[]; results: Promise<R[]> }> = [];
  const drainOne = async () => {
    const next = inflight.shift()!;
    await commit(next.page, await next.results);
  };
  try {
    for await (const page of pages) {
      if (opts.shouldStop?.()) break;
      const results = Promise.all(page.map((item) => limit(() => work(item))));
      // A rejection is awaited in order by drainOne; this keeps Node from calling it unhandled meanwhile.
      results.catch(() => undefined);
      inflight.push({ page, results });
      if (inflight.length >= ahead) await drainOne();
    }
    while (inflight.length) await drainOne();
  } finally {
    limit.clearQueue();
  }
}
