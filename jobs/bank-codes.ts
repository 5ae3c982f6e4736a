// Entry of the bank-codes sync for cron or a container (`node dist/jobs/bank-codes.js`). Nothing imports this file.
import { runJobEntry } from '../src/runtime/job-entry.ts';
import { bankSyncJob } from '../src/services/bank-codes.ts';

await runJobEntry(async () => (await bankSyncJob()).exitCode);
