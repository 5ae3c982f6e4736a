// Entry of the scheduler for a container (`node dist/jobs/schedule.js`): runs every scheduled job
// until SIGTERM/SIGINT. Nothing imports this file.
import { runJobEntry } from '../src/runtime/job-entry.ts';
import { scheduleJob } from '../src/services/schedule.ts';

await runJobEntry(async () => {
  const { exitCode, finished } = await scheduleJob();
  // A job still running past the shutdown timeout keeps the event loop alive: leave now, its run resumes later.
  if (!finished) process.exit(exitCode);
  return exitCode;
});
