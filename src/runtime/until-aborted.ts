/** Resolves with the abort reason once the signal is aborted: a long-running server's "run until stopped". */
export function untilAborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}
