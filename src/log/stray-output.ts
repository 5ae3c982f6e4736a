import type { Logger } from 'pino';
import { printErr } from './terminal.ts';

/**
 * Output payrecon does not write itself: Node's process warnings and the database driver's warnings.
 * Once a process's root logger exists they go through it, so under LOG_FORMAT=json every stderr line
 * is JSON (and repeats are summarised like any warning); before, they are plain lines.
 */
let sink: Logger | null = null;

export function routeStrayOutput(logger: Logger): void {
  if (!sink) {
    // Node prints warnings through its own 'warning' listener: replaced, not added to.
    process.removeAllListeners('warning');
    process.on('warning', (w: Error & { code?: string }) => strayWarning('node', w.message, { warning: w.name, code: w.code }));
  }
  sink = logger;
}

/** A warning from a library: through the routed logger, else one plain line on stderr. */
export function strayWarning(source: string, message: string, fields: Record<string, unknown> = {}): void {
  if (sink) sink.warn({ source, ...fields }, message);
  else printErr(`${source}: ${message}\n`);
}
