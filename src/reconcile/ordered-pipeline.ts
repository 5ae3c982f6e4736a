import pLimit from 'p-limit';

/**
 * Runs every element of each page through two stages and hands finished pages to `commit`
 * strictly in page order. `work` (the provider fetch) holds one of `concurrency` slots; `finish`
 * (the comparison) runs once the slot is given back and the I/O callbacks pending are served, so
 * the next fetch is on the wire before this answer is worked on. With a fixed provider latency,
 * work done between an answer and the next request is paid by every request in flight: 150 µs of
 * it cost a tenth of the throughput at 50 ms and 64 in flight (bench/results/run.jsonl, 2026-11-25).
 * Ordered commits keep the run's checkpoint contiguous (everything up to it is written), while
 * up to `ahead` pages in flight keep the slots busy across page boundaries.
 */
export async function runOrderedPipeline<T, F, R>(
  pages: AsyncIterable<T[]>,
  work: (item: T) => Promise<F>,
  finish: (item: T, fetched: F) => R,
  commit: (page: T[], results: R[]) => Promise<void>,
  opts: { concurrency: number; ahead?: number; shouldStop?: () => boolean },
): Promise<void> {
  const limit = pLimit(opts.concurrency);
  const ahead = Math.max(1, opts.ahead ?? 3);
  const inflight: Array<{ page: T[]; results: Promise<R[]> }> = [];
  const run = async (item: T): Promise<R> => {
    const fetched = await limit(() => work(item));
    return afterPendingIo(() => finish(item, fetched));
  };
  const drainOne = async () => {
    const next = inflight.shift()!;
    await commit(next.page, await next.results);
  };
  try {
    for await (const page of pages) {
      if (opts.shouldStop?.()) break;
      const results = Promise.all(page.map(run));
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

/** Runs `fn` after the current microtasks and the I/O callbacks already due (setImmediate's phase). */
function afterPendingIo<R>(fn: () => R): Promise<R> {
  return new Promise((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(fn());
      } catch (err) {
        reject(err);
      }
    }),
  );
}
