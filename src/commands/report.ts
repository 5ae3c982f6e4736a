import { printOut } from '../log/terminal.ts';
import type { Command } from 'commander';
import { listedFiles } from '../report/manifest.ts';
import type { WriteReportsResult } from '../report/write-reports.ts';
import type { ReportEmailResult } from '../report/email/send.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';

export interface ReportCommandOptions {
  date?: string;
  force?: boolean;
  email?: boolean;
  resend?: boolean;
  json?: boolean;
  account?: string;
}

function describeEmail(e: ReportEmailResult): string {
  const what = `e-mail ${e.businessDate} v${e.version}: `;
  switch (e.status) {
    case 'sent':
      return `${what}sent\n`;
    case 'already_sent':
      return `${what}already sent (use --resend to send it again)\n`;
    case 'busy':
      return `${what}another process is sending it\n`;
    case 'failed':
      return `${what}FAILED, left pending for the next run: ${e.error}\n`;
    case 'removed':
      return `${what}not sent: ${e.message}\n`;
  }
}

export function describe(r: WriteReportsResult): string {
  // With several accounts the manifest names the account: so does the line.
  const day = r.manifest.account ? `${r.manifest.account.id} ${r.manifest.business_date}` : r.manifest.business_date;
  const head = r.unchanged ? `report ${day}: unchanged, current version is v${r.version}` : `report ${day}: wrote v${r.version}`;
  const files = listedFiles(r.manifest.files);
  const width = Math.max(...files.map((f) => f.name.length));
  const lines = files.map((f) => `  ${f.name.padEnd(width)}  ${f.note}`.trimEnd());
  const orphans = r.quarantined.map(
    (q) =>
      `warning: v${q.version} was on disk but never recorded in the database (a run interrupted before its commit); moved to ${q.directory}\n`,
  );
  return `${orphans.join('')}${head}\n${r.manifest.headline ?? ''}\n${r.directory}\n${lines.join('\n')}\n`;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'write the CSV reports of a business day as a new version in REPORT_DIR/<date>/ (REPORT_DIR/<account>/<date>/ with several accounts)',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'payrecon report                          # yesterday in REPORT_TIMEZONE',
        'payrecon report --date 2026-11-21 --email',
        'payrecon report --date 2026-11-21 --email --resend',
        'payrecon report --date 2026-11-21 --json | jq .manifest.files',
        "payrecon report --account ng-brand --date 2026-11-21 --email   # several accounts: one account's report",
      ]),
    )
    .option('--date <YYYY-MM-DD>', 'business date in REPORT_TIMEZONE (default: yesterday there)')
    .option('--force', 'write a new version even when the content is unchanged')
    .option(
      '--account <id>',
      'the account whose report this is, from its own orders, checks and snapshots (required when several accounts are configured)',
    )
    .option(
      '--email',
      "e-mail the version to REPORT_EMAIL_TO, or the account's reportRecipients (once per version), and retry pending deliveries",
    )
    .option('--resend', 'with --email: send a version that was already e-mailed again')
    .option('--json', 'print the result (version, directory, manifest, e-mails) as JSON')
    .addHelpText(
      'after',
      envHelp([
        ...DB_ENV,
        'ACCOUNTS_FILE',
        'REPORT_DIR',
        'REPORT_TIMEZONE',
        'RECON_CURRENCIES',
        'RECON_TOLERANCE',
        'SMTP_URL',
        'REPORT_EMAIL_FROM',
        'REPORT_EMAIL_TO',
        'ALERT_WEBHOOK_URL',
        'ALERT_EMAIL_TO',
      ]),
    )
    .action(async (opts: ReportCommandOptions) => {
      const { reportJob } = await import('../services/report.ts');
      const { exitCode, report, emails } = await reportJob({
        date: opts.date,
        force: opts.force,
        email: opts.email,
        resend: opts.resend,
        account: opts.account,
      });
      printOut(opts.json ? `${JSON.stringify({ ...report, emails }, null, 2)}\n` : describe(report) + emails.map(describeEmail).join(''));
      process.exitCode = exitCode;
    });
}
