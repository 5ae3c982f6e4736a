import cliProgress from 'cli-progress';
import type { Logger } from 'pino';

export interface ProgressSink {
  update(done: number, total: number, mismatches: number): void;
  stop(): void;
}

/**
 * A progress bar on a terminal (done, rate, mismatches, time left); elsewhere a JSON log line at
 * most every few seconds, so nightly logs stay readable.
 */
export function createProgress(logger: Logger, stream: NodeJS.WriteStream = process.stderr, everyMs = 5000): ProgressSink {
  if (stream.isTTY && !process.env.CI) {
    const bar = new cliProgress.SingleBar(
      {
        format: ' {bar} {percentage}% | {value}/{total} orders | {rate}/s | {mismatches} mismatches | ETA {eta_formatted}',
        stream,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    const started = Date.now();
    let begun = false;
    return {
      update(done, total, mismatches) {
        const rate = Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
        if (!begun) bar.start(total, done, { rate, mismatches });
        begun = true;
        bar.setTotal(total);
        bar.update(done, { rate, mismatches });
      },
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update(done, total, mismatches) {
      const now = Date.now();
      if (now - last < everyMs && done < total) return;
      last = now;
      logger.info({ done, total, mismatches }, 'progress');
    },
    stop() {},
  };
}
