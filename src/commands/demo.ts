import type { Command } from 'commander';
import { DB_ENV, envHelp } from './env-help.ts';
import { UsageError } from '../domain/errors.ts';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('the whole night in under a minute: sandbox provider, embedded database, seeded merchant, discrepancies, reports')
    .option('--payments <n>', 'pay-ins to seed', '1800')
    .option('--payouts <n>', 'payouts to seed', '1200')
    .option('--seed <n>', 'seed of the merchant and the sandbox scenarios', '42')
    .option('--data-dir <dir>', "the demo's embedded database (wiped at start)", '.data/demo')
    .addHelpText(
      'after',
      `
Needs nothing configured. Writes reports to REPORT_DIR/demo/<today>/v1/, a folder of its own that each run
starts afresh (the demo's database is new each run); nothing else in REPORT_DIR is touched.
With DATABASE_URL set, uses (and recreates) the schema payrecon_demo there instead of PGlite.
Examples:
  payrecon demo
  payrecon demo --payments 5000 --payouts 3000
${envHelp([...DB_ENV, 'REPORT_DIR', 'REPORT_TIMEZONE', 'PROVIDER_MERCHANT_ID', 'PROVIDER_SECRET'])}`,
    )
    .action(async (opts: { payments: string; payouts: string; seed: string; dataDir: string }) => {
      const count = (name: string, v: string) => {
        if (!/^\d{1,6}$/.test(v)) throw new UsageError(`--${name}: expected a whole number up to 999999 (got ${JSON.stringify(v)})`);
        return Number(v);
      };
      const [{ runDemo }, { createLogger }, { secretValues }, { loadConfig }] = await Promise.all([
        import('../demo/run-demo.ts'),
        import('../log/logger.ts'),
        import('../config/redact.ts'),
        import('../config/config.ts'),
      ]);
      await runDemo({
        payments: count('payments', opts.payments),
        payouts: count('payouts', opts.payouts),
        seed: count('seed', opts.seed),
        dataDir: opts.dataDir,
        out: process.stdout,
        // The demo's own lines are the output; job logs only when something goes wrong. Not at warn: the
        // demo has no alert channel by design, and "no alert channel configured" lines fell between its tables.
        logger: createLogger({ level: process.env.LOG_LEVEL ?? 'error', secrets: secretValues(loadConfig()) }),
      });
    });
}
