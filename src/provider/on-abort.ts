/**
 * One 'abort' listener per signal, however many waits share it. The client's stop signal is shared by
 * every call of a run: each queued call and each retry backoff used to add listeners of its own, so an
 * outage with a dozen calls waiting passed Node's limit of 10 (MaxListenersExceededWarning on stderr).
 */
const waiters = new WeakMap<AbortSignal, { fns: Set<() => void>; listener: () => void }>();

/** Calls fn once when signal aborts; the returned function forgets it (idempotent). */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let entry = waiters.get(signal);
  if (!entry) {
    const fns = new Set<() => void>();
    const listener = () => {
      waiters.delete(signal);
      for (const f of [...fns]) f();
    };
    entry = { fns, listener };
    waiters.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  const own = entry;
  // A Set keeps one entry per function: wrap, so the same function twice is two waits.
  const wait = () => fn();
  own.fns.add(wait);
  return () => {
    own.fns.delete(wait);
    if (own.fns.size === 0 && waiters.get(signal) === own) {
      waiters.delete(signal);
      signal.removeEventListener('abort', own.listener);
    }
  };
}
