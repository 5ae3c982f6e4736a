/**
 * How long an explicit reconcile (--date, --ref) waits for a running sweep's lock. Its own module so
 * `payrecon reconcile --help` can print it without loading the reconcile pipeline.
 * Long enough for a 15-minute sweep to finish, short enough that cron's next line is not held up for long.
 */
export const DEFAULT_LOCK_WAIT_MS = 5 * 60_000;
