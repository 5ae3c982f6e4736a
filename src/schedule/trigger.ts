import { schedule } from 'node-cron';

/**
 * The real-time source: node-cron fires every minute and hands over the minute it fired for;
 * Scheduler.tick decides what is due. Returns a function that stops and removes the task.
 */
export function startMinuteTrigger(onMinute: (minute: Date) => void): () => Promise<void> {
  // noOverlap is irrelevant here: onMinute only starts runs and returns at once.
  const task = schedule('* * * * *', (ctx) => onMinute(ctx.date), { name: 'payrecon-scheduler-minute' });
  return async () => {
    await task.stop();
    await task.destroy();
  };
}
