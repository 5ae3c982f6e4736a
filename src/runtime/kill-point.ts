/**
 * Crash tests only: PAYRECON_TEST_KILL_AT=<step> makes the process SIGKILL itself when a job
 * reaches that named step, so a test can stop it at an exact point of a multi-step write instead
 * of guessing with timers. Unset (always, outside tests) it does nothing.
 */
export const KILL_AT_ENV = 'PAYRECON_TEST_KILL_AT';

export function killPointFromEnv(env: NodeJS.ProcessEnv = process.env): ((step: string) => void) | undefined {
  const at = env[KILL_AT_ENV];
  if (!at) return undefined;
  return (step) => {
    if (step === at) process.kill(process.pid, 'SIGKILL');
  };
}
