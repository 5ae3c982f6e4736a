import type { Command } from 'commander';
import { printOut } from '../log/terminal.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check the setup: configuration, database, provider credentials, SMTP, alert webhook, report directory')
    .option('--json', 'print one JSON object')
    .addHelpText('after', examplesHelp(['payrecon doctor', 'payrecon doctor --json']))
    .addHelpText(
      'after',
      `
Each check connects for real (a provider balance call, SMTP authentication without sending, a temporary
file in REPORT_DIR); what is not configured is skipped, not failed. Passwords are never printed.
Exit: 0 everything needed is in place, 2 a check failed.
${envHelp([...DB_ENV, ...PROVIDER_ENV, 'SMTP_URL', 'ALERT_WEBHOOK_URL', 'REPORT_DIR'])}`,
    )
    .action(async (opts: { json?: boolean }) => {
      const { renderDoctor, runDoctor } = await import('../doctor/run-doctor.ts');
      const report = await runDoctor();
      printOut(opts.json ? `${JSON.stringify(report)}\n` : renderDoctor(report));
      process.exitCode = report.ok ? EXIT.OK : EXIT.INCOMPLETE;
    });
}
