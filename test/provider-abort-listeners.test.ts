// Issue 40: a provider outage made the run's stop signal carry one 'abort' listener per queued call
// and two per retry backoff, past Node's limit of 10 (MaxListenersExceededWarning on stderr). Now a
// signal carries one listener whatever the number of waits, and none once they are over.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortable, StopRequestedError } from '../src/provider/abortable.ts';
import { onAbort } from '../src/provider/on-abort.ts';
import { defaultSleep } from '../src/provider/rate-limit.ts';
import { Throttle } from '../src/provider/throttle.ts';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('abort listeners on a shared stop signal', () => {
  it('50 calls queued behind a throttle of 2, each in a backoff sleep, add one listener', async () => {
    const stop = new AbortController();
    const throttle = new Throttle(2);
    const gates: Array<() => void> = [];
    const calls = Array.from({ length: 50 }, () =>
      throttle.run(() => abortable(new Promise<void>((r) => gates.push(r)), stop.signal), stop.signal),
    );
    const sleeps = Array.from({ length: 20 }, () => defaultSleep(60_000, stop.signal));
    await new Promise((r) => setImmediate(r));
    expect(listeners(stop.signal)).toBe(1);
    // Two calls in flight, 48 waiting for a place: a stop reaches every one of them.
    stop.abort();
    const settled = await Promise.allSettled(calls);
    expect(settled.every((s) => s.status === 'rejected' && s.reason instanceof StopRequestedError)).toBe(true);
    await Promise.all(sleeps);
    expect(listeners(stop.signal)).toBe(0);
  });

  it('leaves no listener behind once the waits are over', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 30; i++) await abortable(defaultSleep(0, stop.signal), stop.signal);
    expect(listeners(stop.signal)).toBe(0);
    expect(stop.signal.aborted).toBe(false);
  });

  it('calls each waiter once, the same function twice counting twice, a forgotten one never', () => {
    const stop = new AbortController();
    const seen: string[] = [];
    const fn = () => seen.push('a');
    onAbort(stop.signal, fn);
    onAbort(stop.signal, fn);
    const forget = onAbort(stop.signal, () => seen.push('gone'));
    forget();
    forget();
    stop.abort();
    stop.abort();
    expect(seen).toEqual(['a', 'a']);
  });
});
