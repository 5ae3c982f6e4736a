/**
 * Where the job's fixed costs end (issue 42): its CPU at the first moment its run had checked `from`
 * orders. What it spent until then is start-up (module loading, connecting, selecting) and V8's
 * warm-up (compiling the hot paths, the first batches); the CPU after it, per order checked after it,
 * is the job's steady state, the figure comparable with the fetch-only client's (which is timed after
 * its own warm-up). Sampled from outside (the process's /proc CPU, the run row's checked count), so
 * the job runs as it always does.
 */
export interface WarmSplit {
  /** Orders the run had checked at the split. */
  checked: number;
  /** The job's CPU seconds at that moment. */
  cpuSeconds: number;
}

export interface WarmSplitSampler {
  /** Stops sampling; the split, or null when the run never reached `from` while sampled. */
  stop(): WarmSplit | null;
}

export function sampleWarmSplit(opts: {
  /** The job's CPU seconds so far (0 once it is gone). */
  cpuSeconds: () => number;
  /** Orders its run has checked so far (null: not known yet). */
  checked: () => Promise<number | null>;
  from: number;
  everyMs: number;
}): WarmSplitSampler {
  let split: WarmSplit | null = null;
  let busy = false;
  const timer = setInterval(() => {
    if (split || busy) return;
    busy = true;
    // The CPU before the count: the split is placed no later than the orders it claims (a batch written between overstates the warm-up a little).
    const cpuSeconds = opts.cpuSeconds();
    void opts
      .checked()
      .then((checked) => {
        if (!split && checked !== null && checked >= opts.from && cpuSeconds > 0) split = { checked, cpuSeconds };
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, opts.everyMs);
  return {
    stop() {
      clearInterval(timer);
      return split;
    },
  };
}

/** The job's CPU per order after the split, in µs; null without a split or with nothing after it. */
export function steadyCpuUs(totalCpuSeconds: number, orders: number, split: WarmSplit | null): number | null {
  if (!split || split.checked >= orders) return null;
  return Math.round(((totalCpuSeconds - split.cpuSeconds) * 1e6) / (orders - split.checked));
}
