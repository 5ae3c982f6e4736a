/** Exit statuses shared by every command (documented in docs/reference/commands.md). */
export const EXIT = Object.freeze({
  OK: 0,
  /** The run completed and found mismatches (only with --fail-on-mismatch). */
  MISMATCHES: 1,
  /**
   * The run could not complete: credentials refused, provider unavailable, database lost; or it could
   * not start: its job's lock still held after --wait, or held by a run stalled past RUN_STALL_AFTER_SECONDS.
   */
  INCOMPLETE: 2,
  /** Bad input: invalid configuration, arguments, or an unmigrated database. Nothing was done. */
  USAGE: 3,
});
