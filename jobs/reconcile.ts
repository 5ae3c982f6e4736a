// Entry of the reconcile job for cron or a container (`node dist/jobs/reconcile.js`): due orders,
// JSON logs on stderr, the exit status of `payrecon reconcile`. Nothing imports this file.
import { runJobEntry } from '../src/runtime/job-entry.ts';
import { reconcileJob } from '../src/services/reconcile.ts';

await runJobEntry(async () => (await reconcileJob({ progress: false })).exitCode);
