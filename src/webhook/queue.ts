import pLimit from 'p-limit';
import { silentLogger } from '../log/logger.ts';
import { confirmWebhookEvent, type ConfirmDeps } from './confirm.ts';
import { messageOf } from '../domain/errors.ts';

export interface ConfirmQueue {
  /** Schedules confirmation of a stored event; an id already queued or in flight is not queued twice. */
  enqueue(id: string): void;
  /** Resolves when nothing is queued or in flight (tests, graceful shutdown). */
  idle(): Promise<void>;
  readonly size: number;
}

/**
 * In-process confirmation after the 200: bounded concurrency so a burst of notifications cannot become a
 * burst of fetches. Nothing here is durable by design: the event row is, and confirmPendingWebhooks picks
 * up whatever a crash left pending.
 */
export function createConfirmQueue(deps: ConfirmDeps & { concurrency?: number }): ConfirmQueue {
  const limit = pLimit(Math.max(1, deps.concurrency ?? 8));
  const queued = new Set<string>();
  const running = new Set<Promise<unknown>>();
  const logger = deps.logger ?? silentLogger;
  return {
    enqueue(id) {
      if (queued.has(id)) return;
      queued.add(id);
      const p = limit(() => confirmWebhookEvent(deps, id))
        .catch((err: unknown) => logger.error({ eventId: id, err: messageOf(err) }, 'webhook confirmation failed; left pending'))
        .finally(() => {
          queued.delete(id);
          running.delete(p);
        });
      running.add(p);
    },
    async idle() {
      while (running.size) await Promise.all([...running]);
    },
    get size() {
      return queued.size;
    },
  };
}
