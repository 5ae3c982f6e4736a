import type { LogFn, Logger } from 'pino';

/** pino's warn level: summarising starts here (info and debug are not alarms anybody counts). */
const WARN = 40;

interface Pending {
  count: number;
  /** The logger (with its bindings) and level method of the latest repeat: the summary is written with them. */
  logger: Logger;
  method: LogFn;
  timer: NodeJS.Timeout;
  flush: () => void;
}

/** Every window with repeats not yet written, so a process that exits still says how many. */
const unflushed = new Set<Pending>();
let exitHook = false;

/**
 * A pino `logMethod` hook: the first of identical warnings (same level and message) is written, the
 * rest are counted, and at the end of each window a line says how many more there were. A provider
 * outage wrote 2,168 identical "provider call failed; retrying" lines in 35 minutes (issue 40); now it
 * writes one, then one count a minute while it lasts.
 */
export function summariseRepeats(windowMs: number) {
  const seen = new Map<string, Pending>();
  return function logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, level: number): void {
    const msg = typeof args[0] === 'string' ? args[0] : typeof args[1] === 'string' ? args[1] : undefined;
    if (level < WARN || windowMs <= 0 || msg === undefined) return method.apply(this, args);
    const key = `${level} ${msg}`;
    const pending = seen.get(key);
    if (pending) {
      pending.count++;
      pending.logger = this;
      pending.method = method;
      unflushed.add(pending);
      return;
    }
    method.apply(this, args);
    const state: Pending = {
      count: 0,
      logger: this,
      method,
      timer: setTimeout(() => state.flush(), windowMs).unref(),
      flush: () => {
        unflushed.delete(state);
        clearTimeout(state.timer);
        if (state.count === 0) return void seen.delete(key);
        const seconds = Math.round(windowMs / 1000);
        state.method.apply(state.logger, [
          { repeated: state.count, windowSeconds: seconds },
          `${msg} (${state.count} more within ${seconds} s)`,
        ]);
        state.count = 0;
        state.timer = setTimeout(() => state.flush(), windowMs).unref();
      },
    };
    seen.set(key, state);
    if (!exitHook) {
      exitHook = true;
      // The log destination is synchronous (fd 2), so the counts are written before the process ends.
      process.once('exit', () => {
        for (const p of [...unflushed]) {
          p.flush();
          clearTimeout(p.timer);
        }
      });
    }
  };
}
