import type { Command } from 'commander';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run the jobs `payrecon schedule` enqueues with SCHEDULE_MODE=queue (Postgres only), until SIGTERM/SIGINT')
    .addHelpText('after', examplesHelp(['payrecon worker', 'WORKER_CONCURRENCY=4 payrecon worker']))
    .addHelpText(
      'after',
      `
Runs reconcile batches, snapshots, bank-code syncs, dailies (reconcile + report + e-mail) and prunes
from the queue in graphile-worker's schema (<DATABASE_SCHEMA>_worker, installed at start). Start any
number, on any machines sharing the database. A worker killed mid-job loses nothing: once it has been
silent for WORKER_LOCK_TIMEOUT_SECONDS, another worker runs its jobs again (docs/operations/workers.md).
SIGTERM/SIGINT: no new jobs; the jobs in flight finish.
Exit: 0 stopped cleanly, 2 presumed dead (silent past the lock timeout) or the database failed, 3 bad configuration.
${envHelp([...DB_ENV, ...PROVIDER_ENV, 'WORKER_CONCURRENCY', 'WORKER_LOCK_TIMEOUT_SECONDS', 'RECON_CONCURRENCY', 'RECON_BATCH_SIZE'])}`,
    )
    .action(async () => {
      const { workerJob } = await import('../services/worker.ts');
      const { exitCode } = await workerJob();
      process.exitCode = exitCode;
    });
}
