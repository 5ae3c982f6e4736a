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
 * The slots are a counter and a list of pages with items not started, not a general limiter: this runs
 * once per order, and a limiter's own promises per call were a measurable share of the job's CPU (issue 42).
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
  const inflight: Array<PageRun<T, F, R>> = [];
  // Pages with items not started yet, oldest first: a freed slot starts the next item of the first.
  const waiting: Array<PageRun<T, F, R>> = [];
  const slots = { active: 0, stopped: false };
  const release = () => {
    slots.active--;
    // Checked at the top of each turn: a work that throws at once releases its slot from inside startNext.
    while (!slots.stopped && slots.active < concurrency && waiting.length > 0) {
      if (waiting[0].hasWaiting()) waiting[0].startNext();
      else waiting.shift();
    }
  };
  const drainOne = async () => {
    const next = inflight.shift()!;
    await commit(next.page, await next.results);
  };
  try {
    for await (const page of pages) {
      if (opts.shouldStop?.()) break;
      const run = new PageRun(page, work, finish, slots, release);
      while (slots.active < concurrency && run.hasWaiting()) run.startNext();
      if (run.hasWaiting()) waiting.push(run);
      // A rejection is awaited in order by drainOne; this keeps Node from calling it unhandled meanwhile.
      run.results.catch(() => undefined);
      inflight.push(run);
      if (inflight.length >= ahead) await drainOne();
    }
    while (inflight.length) await drainOne();
  } finally {
    // Fetches not started yet never start (their pages are not committed).
    slots.stopped = true;
    waiting.length = 0;
  }
}

/**
 * One page in the pipeline: its items start in order as slots free up, each result lands at its
 * index, and one promise settles when all are in (or at the first failure). One promise per page,
 * not per item: per-item promises lived until their page was written, for the collector to copy.
 */
class PageRun<T, F, R> {
  readonly results: Promise<R[]>;
  private readonly values: R[];
  private next = 0;
  private remaining: number;
  private resolve!: (values: R[]) => void;
  private reject!: (err: unknown) => void;
  private failed = false;

  constructor(
    readonly page: T[],
    private readonly work: (item: T) => Promise<F>,
    private readonly finish: (item: T, fetched: F) => R,
    private readonly slots: { active: number },
    private readonly release: () => void,
  ) {
    this.values = new Array<R>(page.length);
    this.remaining = page.length;
    this.results = new Promise<R[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (page.length === 0) this.resolve(this.values);
  }

  hasWaiting(): boolean {
    return this.next < this.page.length;
  }

  /** Starts the next item: it holds a slot while its work runs, then finishes after the pending I/O. */
  startNext(): void {
    const i = this.next++;
    this.slots.active++;
    let fetching: Promise<F>;
    try {
      fetching = this.work(this.page[i]);
    } catch (err) {
      this.release();
      this.fail(err);
      return;
    }
    fetching.then(
      (fetched) => {
        this.release();
        afterPendingIo(this, i, fetched);
      },
      (err: unknown) => {
        this.release();
        this.fail(err);
      },
    );
  }

  /** Called once the item's slot is given back and the pending I/O is served. */
  finishItem(i: number, fetched: F): void {
    if (this.failed) return;
    try {
      this.values[i] = this.finish(this.page[i], fetched);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (--this.remaining === 0) this.resolve(this.values);
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.reject(err);
  }
}

/** Comparisons waiting for the check phase (page, index, answer); one setImmediate serves all queued before it ran. */
let duePages: Array<PageRun<never, unknown, unknown>> = [];
let dueIndexes: number[] = [];
let dueFetched: unknown[] = [];

/** Finishes item i of `run` after the current microtasks and the I/O callbacks already due (setImmediate's phase). */
function afterPendingIo<T, F, R>(run: PageRun<T, F, R>, i: number, fetched: F): void {
  if (duePages.length === 0) setImmediate(runDue);
  duePages.push(run as unknown as PageRun<never, unknown, unknown>);
  dueIndexes.push(i);
  dueFetched.push(fetched);
}

function runDue(): void {
  const pages = duePages;
  const indexes = dueIndexes;
  const fetched = dueFetched;
  duePages = [];
  dueIndexes = [];
  dueFetched = [];
  for (let k = 0; k < pages.length; k++) pages[k].finishItem(indexes[k], fetched[k]);
}
