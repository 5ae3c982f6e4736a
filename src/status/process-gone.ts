import os from 'node:os';

/**
 * Whether the process a run recorded (job_runs pid and host) is gone: only answerable on the same
 * host, where signal 0 to the pid tests its existence without touching it. ESRCH: no such process
 * (a SIGKILL, a crash); EPERM means it exists under another user. Elsewhere: unknown, so false,
 * and the stall rule (RUN_STALL_AFTER_SECONDS) still applies. A reused pid reads as alive: the
 * same fallback.
 */
export function processGone(run: { pid: number | null; host: string | null }, thisHost: string = os.hostname()): boolean {
  if (run.pid === null || run.pid <= 0 || run.host !== thisHost) return false;
  try {
    process.kill(run.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
