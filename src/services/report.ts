// The report job: write the day's reports, e-mail them, retry pending deliveries, an exit status.
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import { loadConfig, type Config } from '../config/config.ts';
import { accountFor, apartOf, journalChartOf, reportRecipientsOf } from '../config/accounts.ts';
import { secretValues } from '../config/redact.ts';
import { describeDatabase } from '../db/describe.ts';
import { businessDay, dayIsPartial, defaultReportDate } from '../report/date.ts';
import { writeReports, type WriteReportsResult } from '../report/write-reports.ts';
import { createMailer, type Mailer } from '../notify/mailer.ts';
import { retryPendingEmails, sendReportEmail, type ReportEmailResult } from '../report/email/send.ts';
import { raiseAndDeliver } from '../runtime/alerting.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { killPointFromEnv } from '../runtime/kill-point.ts';
import type { Db } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import { UsageError } from '../domain/errors.ts';

export interface ReportJobOptions {
  /** Business date YYYY-MM-DD in REPORT_TIMEZONE; default yesterday there. */
  date?: string;
  force?: boolean;
  /** E-mail the day's current version to REPORT_EMAIL_TO, or the account's reportRecipients (once; again only with resend). */
  email?: boolean;
  /**
   * --account ID: the account whose report this is, required when several accounts are configured (its
   * rows only, written under REPORT_DIR/<account>/<date>/, numbered apart, its chart of accounts and recipients).
   */
  account?: string;
  resend?: boolean;
  mailer?: Mailer;
  now?: () => Date;
}

export interface ReportJobResult {
  exitCode: number;
  report: WriteReportsResult;
  /** This version's delivery, then any earlier pending ones retried. */
  emails: ReportEmailResult[];
}

export async function reportJob(options: ReportJobOptions = {}, context: JobContextOptions = {}): Promise<ReportJobResult> {
  const config = context.config ?? loadConfig();
  const now = options.now ?? (() => new Date());
  // With several accounts a report is one account's (named, or refused naming the ids); with one,
  // nothing is filtered or named: the files are exactly what they were before accounts.
  const account = accountFor(config, options.account);
  const apart = apartOf(config, account);
  const recipients = apart ? reportRecipientsOf(apart, config) : (config.REPORT_EMAIL_TO ?? []);
  // Validated before the database is opened: a bad or future --date does nothing at all.
  const day = businessDay(options.date ?? defaultReportDate(config.REPORT_TIMEZONE, now()), config.REPORT_TIMEZONE);
  dayIsPartial(day, now());
  const date = day.date;
  if (options.email && !recipients.length)
    throw new UsageError(
      apart
        ? `${apart.id}: no report recipients (reportRecipients in ACCOUNTS_FILE, or REPORT_EMAIL_TO); --email needs the accounting recipients`
        : 'REPORT_EMAIL_TO: not set; --email needs the accounting recipients',
    );
  const mailer = options.mailer ?? (options.email || (config.SMTP_URL && recipients.length) ? tryMailer(config) : undefined);
  try {
    return await withJob('report', { ...context, config, ...(apart ? { account: apart.id } : {}) }, ({ db, logger }) =>
      produce(db, logger),
    );
  } finally {
    if (!options.mailer) mailer?.close();
  }

  async function produce(db: Db, logger: Logger): Promise<ReportJobResult> {
    const report = await writeReports(db, {
      date,
      timezone: config.REPORT_TIMEZONE,
      reportDir: config.REPORT_DIR,
      databaseDescription: describeDatabase(config),
      now: now(),
      force: options.force ?? false,
      logger,
      currencies: config.RECON_CURRENCIES,
      tolerances: config.RECON_TOLERANCE,
      movementLagMs: config.MOVEMENT_LAG_MIN * 60_000,
      lookbackDays: config.RECON_LOOKBACK_DAYS,
      ...(apart ? { account: { id: apart.id, displayName: apart.displayName } } : {}),
      journal: {
        accounts: apart ? journalChartOf(apart, config) : config.JOURNAL_ACCOUNTS_FILE,
        base: config.JOURNAL_BASE_CURRENCY,
        baseRates: config.JOURNAL_RATES_FILE,
        usdtAtPar: config.JOURNAL_USDT_AT_PAR,
        fxRevaluation: config.JOURNAL_FX_REVALUATION,
        xeroTaxRate: config.JOURNAL_XERO_TAX_RATE,
      },
      feeSchedule: config.FEE_SCHEDULE_FILE,
      onStep: killPointFromEnv(),
    });
    const emails: ReportEmailResult[] = [];
    if (mailer) {
      const secrets = secretValues(config);
      if (options.email) {
        emails.push(
          await sendReportEmail(db, mailer, {
            versionId: report.record.id,
            ...(apart ? { to: recipients } : {}),
            resend: options.resend,
            now: now(),
            secrets,
            onStep: killPointFromEnv(),
          }),
        );
      }
      // Deliveries that failed earlier (SMTP down) go out now: nothing is lost. Not when this
      // run's own send just failed: the server is down, and the next run retries them all.
      // With several accounts, this account's pending versions to its recipients; the others' wait for their own runs.
      const retry = apart ? { secrets, to: recipients, account: apart.id } : { secrets };
      if (!emails.some((e) => e.status === 'failed')) emails.push(...(await retryPendingEmails(db, mailer, now(), retry)));
    }
    await raiseAndDeliver({ db, config, logger, now, mailer, job: 'report', ...(apart ? { account: apart.id } : {}) }, []);
    const failed = emails.some((e) => e.status === 'failed');
    return { exitCode: failed ? EXIT.INCOMPLETE : EXIT.OK, report, emails };
  }
}

function tryMailer(config: Config): Mailer | undefined {
  if (!config.SMTP_URL) throw new UsageError('SMTP_URL: not set; e-mailing reports needs an SMTP server');
  return createMailer(config);
}
