import type { Command } from 'commander';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';

export function registerSchedule(program: Command): void {
  program
    .command('schedule')
    .description('run reconcile, snapshot, bank-codes and the daily reconcile + report on their cron schedules, until SIGTERM/SIGINT')
    .addHelpText('after', examplesHelp(['payrecon schedule', "SCHEDULE_RECONCILE='*/5 * * * *' SCHEDULE_BANK_CODES=off payrecon schedule"]))
    .option('--no-catch-up', 'do not run at start what was due while no scheduler ran')
    .option('--migrate', 'apply pending migrations first, under the migration lock (the Docker image does)')
    .addHelpText(
      'after',
      `
Jobs (cron expressions in REPORT_TIMEZONE; "off" disables one):
  reconcile   SCHEDULE_RECONCILE    non-final orders due for a check
  snapshot    SCHEDULE_SNAPSHOT     balances and USDT rates, roll-forward check
  bank-codes  SCHEDULE_BANK_CODES   bank code list
  daily       SCHEDULE_DAILY        full reconcile of yesterday, then yesterday's report
                                    (e-mailed when SMTP_URL and REPORT_EMAIL_TO are set)
At start, a job whose last occurrence has no run since (and a daily whose date has no completed
run or no report) runs at once. Several schedulers may run against one database for failover:
each job's advisory lock lets one of them run it, the others log a skip.
SIGTERM/SIGINT: no new runs; a running reconcile checkpoints; waits up to SCHEDULE_SHUTDOWN_TIMEOUT_MS.
Health and metrics: with SCHEDULE_HTTP_PORT set, GET /healthz, /readyz and /metrics (docs/operations/running-in-production.md).
Logs: JSON lines on stderr. See also: payrecon status, payrecon doctor.
Exit: 0 stopped cleanly, 2 a job was still running at the shutdown timeout, 3 bad configuration.
${envHelp([...DB_ENV, ...PROVIDER_ENV, 'SCHEDULE_RECONCILE', 'SCHEDULE_SNAPSHOT', 'SCHEDULE_BANK_CODES', 'SCHEDULE_DAILY', 'SCHEDULE_PRUNE', 'SCHEDULE_SHUTDOWN_TIMEOUT_MS', 'SCHEDULE_HTTP_PORT', 'SCHEDULE_HTTP_HOST', 'REPORT_TIMEZONE', 'SMTP_URL', 'REPORT_EMAIL_TO'])}`,
    )
    .action(async (opts: { catchUp: boolean; migrate?: boolean }) => {
      const { scheduleJob } = await import('../services/schedule.ts');
      const { exitCode, finished } = await scheduleJob({ noCatchUp: !opts.catchUp, migrate: opts.migrate });
      // A job still running past the timeout keeps the event loop alive: leave now, its run resumes later.
      if (!finished) process.exit(exitCode);
      process.exitCode = exitCode;
    });
}
