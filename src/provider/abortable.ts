import { onAbort as onSignalAbort } from './on-abort.ts';

/** Why a wait ended early: the job was asked to stop (SIGTERM, the scheduler's shutdown). */
export class StopRequestedError extends Error {
  constructor() {
    super('stopped while waiting to call the provider');
    this.name = 'StopRequestedError';
  }
}

/**
 * `wait` (a sleep, a place in a queue) cut short by `signal`: rejects with StopRequestedError once
 * it is aborted, so a stop request is not held up by Retry-After waits and backoff.
 */
export function abortable<T>(wait: Promise<T>, signal: AbortSignal | undefined, onAbort?: () => void): Promise<T> {
  if (!signal) return wait;
  if (signal.aborted) {
    onAbort?.();
    return Promise.reject(new StopRequestedError());
  }
  return new Promise<T>((resolve, reject) => {
    const forget = onSignalAbort(signal, () => {
      onAbort?.();
      reject(new StopRequestedError());
    });
    wait.then(
      (v) => {
        forget();
        resolve(v);
      },
      (err: unknown) => {
        forget();
        reject(err);
      },
    );
  });
}
