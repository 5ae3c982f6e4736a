/**
 * Runs every element of each page through two stages and hands finished pages to `commit`
 * strictly in page order. `work` (the provider fetch) holds one of `concurrency` slots; `finish`
 * (the comparison) runs once the slot is given back and the I/O callbacks pending are served, so
 * the next fetch is on the wire before this answer is worked on. With a fixed provider latency,
 * work done between an answer and the next request is paid by every request in flight: 150 µs of
 * it cost a tenth of the throughput at 50 ms and 64 in flight (bench/results/run.jsonl, 2026-11-25).
 * Ordered commits keep the run's checkpoint contiguous (everything up to it is written), while
 * up to `ahead` pages in flight keep the slots busy across page boundaries.
 *
 * The slots are a counter and a list of waiting starts, not a general limiter: this runs once per
 * order, and a limiter's own promises per call were a measurable share of the job's CPU (issue 42).
 */
export async function runOrderedPipeline<T, F, R>(
  pages: AsyncIterable<T[]>,
  work: (item: T) => Promise<F>,
  finish: (item: T, fetched: F) => R,
  commit: (page: T[], results: R[]) => Promise<void>,
  opts: { concurrency: number; ahead?: number; shouldStop?: () => boolean },
): Promise<void> {
  const concurrency = Math.max(1, opts.concurrency);
  const ahead = Math.max(1, opts.ahead ?? 3);
  const inflight: Array<{ page: T[]; results: Promise<R[]> }> = [];
  const waiting: Array<() => void> = [];
  let active = 0;
  let stopped = false;
  const release = () => {
    active--;
    const next = waiting.shift();
    if (next && !stopped) next();
  };
  const run = (item: T): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const start = () => {
        active++;
        let fetching: Promise<F>;
        try {
          fetching = work(item);
        } catch (err) {
          release();
          reject(err);
          return;
        }
        fetching.then(
          (fetched) => {
            release();
            afterPendingIo(() => finish(item, fetched), resolve, reject);
          },
          (err: unknown) => {
            release();
            reject(err);
          },
        );
      };
      if (active < concurrency) start();
      else waiting.push(start);
    });
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
    // Fetches not started yet never start (their pages are not committed).
    stopped = true;
    waiting.length = 0;
  }
}

/** Comparisons waiting for the check phase; one setImmediate serves all that were queued before it ran. */
let due: Array<() => void> = [];

/** Runs `fn` after the current microtasks and the I/O callbacks already due (setImmediate's phase). */
function afterPendingIo<R>(fn: () => R, resolve: (value: R) => void, reject: (err: unknown) => void): void {
  if (due.length === 0) setImmediate(runDue);
  due.push(() => {
    try {
      resolve(fn());
    } catch (err) {
      reject(err);
    }
  });
}

function runDue(): void {
  const batch = due;
  due = [];
  for (const task of batch) task();
}
