import { printOut } from '../log/terminal.ts';
import type { Command } from 'commander';
import { renderStatus } from '../status/render.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('last run of each job, next scheduled times, pending report e-mails, open alerts')
    .addHelpText('after', examplesHelp(['payrecon status', "payrecon status --json | jq '.jobs'"]))
    .option('--json', 'print the status as JSON')
    .addHelpText(
      'after',
      `
Next times come from the SCHEDULE_* variables of this environment (the scheduler's should match).
A reconcile run still running with no batch written for longer than RUN_STALL_AFTER_SECONDS is shown as STALLED, with
since when and its process; one whose process is gone from this host (killed, crashed) says "process gone" at once.
A run made with --dry-run is marked "(dry run)".
Exit: 0 shown, 3 bad configuration or an unmigrated database.
${envHelp([...DB_ENV, 'SCHEDULE_RECONCILE', 'SCHEDULE_SNAPSHOT', 'SCHEDULE_BANK_CODES', 'SCHEDULE_DAILY', 'SCHEDULE_PRUNE', 'RUN_STALL_AFTER_SECONDS', 'REPORT_TIMEZONE'])}`,
    )
    .action(async (opts: { json?: boolean }) => {
      const { statusJob } = await import('../services/status.ts');
      const status = await statusJob();
      printOut(opts.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status));
      process.exitCode = EXIT.OK;
    });
}
