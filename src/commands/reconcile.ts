import { printOut } from '../log/terminal.ts';
import { Option, type Command } from 'commander';
import { currencyOption } from './currency-option.ts';
import { DEFAULT_LOCK_WAIT_MS } from '../services/reconcile-lock-wait.ts';
import { parseWait } from './wait-option.ts';
import type { RunSummary } from '../reconcile/reconcile.ts';
import { renderTable } from '../cli-ui/table.ts';
import type { Currency } from '../money/decimal.ts';
import type { Direction } from '../domain/types.ts';
import { DB_ENV, PROVIDER_ENV, envHelp } from './env-help.ts';
import { codeCounts, verdictCounts } from '../recon/run-counts.ts';

interface ReconcileCliOptions {
  date?: string;
  from?: string;
  to?: string;
  ref?: string;
  kind?: Direction;
  currency?: string;
  account?: string;
  dryRun?: boolean;
  failOnMismatch?: boolean;
  json?: boolean;
  wait?: number;
}

export function registerReconcile(program: Command): void {
  program
    .command('reconcile')
    .description('re-fetch orders from the provider, record verdicts and mismatches, resolve pending orders')
    .option('--date <YYYY-MM-DD>', 'every order created that business day (REPORT_TIMEZONE), final ones included')
    .option('--from <YYYY-MM-DD>', 'first business day of a range (with --to)')
    .option('--to <YYYY-MM-DD>', 'last business day of a range, inclusive')
    .option('--ref <ref>', 'one order, by merchantRef or transactionRef')
    .addOption(new Option('--kind <kind>', 'only payments or only payouts').choices(['payment', 'payout']))
    .addOption(currencyOption('only one currency (any case)'))
    .option(
      '--account <id>',
      'the account whose orders are checked, with its own MerchantID and secret (required when several accounts are configured)',
    )
    .option(
      '--wait <duration>',
      `with --date/--from/--to/--ref: how long to wait for a running reconcile (e.g. 90s, 10m, 0); default ${DEFAULT_LOCK_WAIT_MS / 60_000}m`,
      parseWait,
    )
    .option('--dry-run', 'check and report, but write nothing except the run record')
    .option('--fail-on-mismatch', 'exit 1 when any mismatch was found')
    .option('--json', 'print the run summaries as JSON')
    .addHelpText(
      'after',
      `
Default: every non-final order created within RECON_LOOKBACK_DAYS whose next check is due, and
the final ones of that window last checked more than RECON_FINAL_RECHECK_DAYS ago (late reversals, fee corrections).
Examples:
  payrecon reconcile
  payrecon reconcile --date 2026-11-21            # finance rerun of a day
  payrecon reconcile --ref 3f1c...-uuid --dry-run
  payrecon reconcile --from 2026-11-01 --to 2026-11-07 --kind payout --currency NGN
A rerun (--date, --from/--to, --ref) that finds another reconcile running waits for it (--wait), then runs;
the plain due sweep skips instead, since the running one is doing its work.
Exit: 0 completed (or, for the due sweep, skipped: another run holds the lock), 1 mismatches with --fail-on-mismatch,
      2 could not complete (credentials refused, provider unavailable, the lock still held after --wait, or held
        by a run with no progress for longer than RUN_STALL_AFTER_SECONDS: a run_stalled alert is raised),
      3 bad arguments or configuration.
${envHelp([...DB_ENV, ...PROVIDER_ENV, 'ACCOUNTS_FILE', 'RECON_CONCURRENCY', 'RECON_BATCH_SIZE', 'RUN_STALL_AFTER_SECONDS', 'RECON_LOOKBACK_DAYS', 'RECON_FINAL_RECHECK_DAYS', 'RECON_BACKOFF_PAYMENT', 'RECON_BACKOFF_PAYOUT', 'RECON_FIRST_CHECK_PAYMENT', 'RECON_FIRST_CHECK_PAYOUT', 'RECON_TOLERANCE', 'REPORT_TIMEZONE'])}`,
    )
    .action(async (opts: ReconcileCliOptions) => {
      const { reconcileJob } = await import('../services/reconcile.ts');
      const { exitCode, outcome } = await reconcileJob({
        ...opts,
        waitMs: opts.wait,
        currency: opts.currency as Currency | undefined,
        progress: !opts.json,
      });
      if (opts.json) printOut(`${JSON.stringify(outcome, null, 2)}\n`);
      else if (outcome.status === 'skipped') printOut('reconcile: another run holds the lock; nothing done\n');
      else if (outcome.status === 'busy') printOut(`reconcile: gave up waiting for the lock: ${outcome.lockHolder}\n`);
      else if (outcome.status === 'stalled') printOut(`reconcile: another run is stalled: ${outcome.lockHolder}; nothing done\n`);
      else for (const run of outcome.runs) printOut(describeRun(run));
      process.exitCode = exitCode;
    });
}

export function describeRun(run: RunSummary): string {
  const rows: Array<[string, number]> = [...verdictCounts(run.counts), ...codeCounts(run.counts)];
  const head = `reconcile run ${run.runId}${run.resumed ? ' (resumed)' : ''}: ${run.status}, ${run.checked} of ${run.selected} orders checked\n`;
  const tail = run.error ? `${run.error}\n` : '';
  const examples = run.examples.length
    ? `first mismatches:\n${run.examples.map((e) => `  ${e.merchantRef}  ${e.codes.join(',')}  ${e.reason}`).join('\n')}\n`
    : '';
  return head + renderTable(['verdict / code', 'orders'], rows) + examples + tail;
}
