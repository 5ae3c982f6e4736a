/**
 * The liveness rule for running runs. A run records progress as it goes (its start, each batch
 * written, its resumption); one still 'running' whose last progress is older than the configured
 * time (RUN_STALL_AFTER_SECONDS) is stalled: hung, or cut off from the database while its session
 * still holds the job's lock. Pure: the clock comes in as `now`.
 */
export interface Stall {
  /** The run's last recorded progress. */
  since: Date;
  /** How long ago that was, at `now`. */
  forMs: number;
}

export function stallOf(run: { status: string; lastProgressAt: Date | null }, now: Date, afterMs: number): Stall | null {
  if (run.status !== 'running' || run.lastProgressAt === null) return null;
  const forMs = now.getTime() - run.lastProgressAt.getTime();
  return forMs > afterMs ? { since: run.lastProgressAt, forMs } : null;
}
