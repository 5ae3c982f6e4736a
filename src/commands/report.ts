import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/config.ts';
import { openDatabase } from '../db/connect.ts';
import { assertMigrated } from '../db/migrate.ts';
import { createLogger } from '../log/logger.ts';
import { businessDay, defaultReportDate } from '../report/date.ts';
import { REPORT_FILES } from '../report/manifest.ts';
import { writeReports, type WriteReportsResult } from '../report/write-reports.ts';
import { DB_ENV, envHelp } from './env-help.ts';

export interface ReportCommandOptions {
  date?: string;
  force?: boolean;
  json?: boolean;
}

/**
 * Writes (or confirms) the day's report version and returns it: the e-mail step takes the
 * result's `record` (a report_versions row) from here.
 */
export async function runReport(opts: ReportCommandOptions, config: Config = loadConfig(), out: NodeJS.WritableStream = process.stdout): Promise<WriteReportsResult> {
  const timezone = config.REPORT_TIMEZONE;
  // Validated before the database is opened: a bad --date does nothing at all.
  const date = businessDay(opts.date ?? defaultReportDate(timezone), timezone).date;
  const logger = createLogger({ level: config.LOG_LEVEL });
  const db = await openDatabase(config, { applicationName: 'payrecon-report' });
  try {
    await assertMigrated(db);
    const result = await writeReports(db.knex, {
      date,
      timezone,
      reportDir: config.REPORT_DIR,
      now: new Date(),
      force: opts.force ?? false,
      logger,
      currencies: config.RECON_CURRENCIES,
      tolerances: config.RECON_TOLERANCE,
    });
    out.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : describe(result));
    return result;
  } finally {
    await db.close();
  }
}

function describe(r: WriteReportsResult): string {
  const head = r.unchanged
    ? `report ${r.manifest.business_date}: unchanged, current version is v${r.version}`
    : `report ${r.manifest.business_date}: wrote v${r.version}`;
  const width = Math.max(...REPORT_FILES.map((n) => n.length));
  const lines = REPORT_FILES.map((n) => `  ${n.padEnd(width)}  ${r.manifest.files[n].rows} rows`);
  return `${head}\n${r.directory}\n${lines.join('\n')}\n`;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('write the CSV reports of a business day as a new version in REPORT_DIR/<date>/')
    .option('--date <YYYY-MM-DD>', 'business date in REPORT_TIMEZONE (default: yesterday there)')
    .option('--force', 'write a new version even when the content is unchanged')
    .option('--json', 'print the result (version, directory, manifest) as JSON')
    .addHelpText('after', envHelp([...DB_ENV, 'REPORT_DIR', 'REPORT_TIMEZONE', 'RECON_CURRENCIES', 'RECON_TOLERANCE']))
    .action(async (opts: ReportCommandOptions) => {
      await runReport(opts);
    });
}
