// Entry of the snapshot job for cron or a container (`node dist/jobs/snapshot.js`). Nothing imports this file.
import { runJobEntry } from '../src/runtime/job-entry.ts';
import { snapshotJob } from '../src/services/snapshot.ts';

await runJobEntry(async () => (await snapshotJob()).exitCode);
