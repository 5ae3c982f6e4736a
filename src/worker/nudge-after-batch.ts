import type { WorkerEvents } from 'graphile-worker';

/**
 * When a reconcile batch is done, the account's next batch is ready at once, but graphile-worker
 * completes the job (unlocking the account's named queue) without waiting and asks for the next job
 * right away: it finds the queue still locked and sleeps its poll interval (1 s), measured as gaps of
 * up to a second between an account's batches. A few nudges shortly after, each taken only by an
 * idle slot, take the next batch once the completion has committed; the poll stays the fallback.
 */
const NUDGE_AFTER_MS = [5, 15, 35, 75, 150, 300];

export function nudgeAfterBatches(events: WorkerEvents, task: string, stopped: AbortSignal): void {
  events.on('job:complete', ({ worker, job }) => {
    if (job.task_identifier !== task) return;
    for (const ms of NUDGE_AFTER_MS) {
      setTimeout(() => {
        if (!stopped.aborted) worker.workerPool.nudge(1);
      }, ms).unref();
    }
  });
}
