import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig, type Config } from '../config/config.ts';
import type { ImportResult } from '../import/import.ts';
import { IMPORT_COLUMNS } from '../import/import-row.ts';
import { createStatusMapper, DEFAULT_STATUS_MAP, knownStatusStrings } from '../domain/status.ts';
import { printErr } from '../log/terminal.ts';
import type { Direction } from '../domain/types.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { openInputFile } from './input-file.ts';
import { EXIT } from '../domain/exit-codes.ts';

export interface ImportCommandOptions {
  kind: Direction;
  /** The account of rows without an `account` column (required for them when several accounts are configured). */
  account?: string;
  json?: boolean;
}

/** Imports an order CSV and prints the outcome; the caller maps rejected rows to exit status 3. */
export async function runImport(
  file: string,
  opts: ImportCommandOptions,
  config: Config = loadConfig(),
  out: NodeJS.WritableStream = process.stdout,
): Promise<ImportResult> {
  const input = await openInputFile(file);
  try {
    const [{ withJob }, { importOrders }, { accountFor, configuredAccounts }] = await Promise.all([
      import('../runtime/with-job.ts'),
      import('../import/import.ts'),
      import('../config/accounts.ts'),
    ]);
    const ids = configuredAccounts(config).map((a) => a.id);
    // A row's account: its `account` cell, else --account, else the only account; with several and neither, the row is refused.
    const fallback = opts.account !== undefined || ids.length === 1 ? accountFor(config, opts.account).id : undefined;
    return await withJob('import', { config }, async ({ db }) => {
      const result = await importOrders(db.knex, input, {
        kind: opts.kind,
        statusOf: createStatusMapper(config.PROVIDER_STATUS_MAP),
        accounts: { ids, fallback },
      });
      out.write(opts.json ? `${JSON.stringify(result)}\n` : describe(file, result));
      const warning = unknownStatusWarning(result, config);
      if (warning) printErr(warning);
      return result;
    });
  } finally {
    input.destroy();
  }
}

function describe(file: string, r: ImportResult): string {
  const lines = r.rejected.map((x) => `  line ${x.line}: ${x.reason}\n`).join('');
  const summary = `${file}: ${r.rows} ${r.kind} rows read, ${r.inserted} inserted, ${r.rejected.length} rejected\n`;
  return r.rejected.length ? `${summary}rejected:\n${lines}` : summary;
}

/**
 * An unknown status is stored as `unknown` and the next reconcile calls the order NOT_FOUND/STALE,
 * so say so now, with the strings payrecon knows and how to add one.
 */
function unknownStatusWarning(r: ImportResult, config: Config): string | null {
  const found = Object.entries(r.unknownStatuses);
  if (found.length === 0) return null;
  const count = found.reduce((n, [, c]) => n + c, 0);
  const which = found.map(([s, c]) => `${JSON.stringify(s)} ×${c}`).join(', ');
  const [first] = found[0]!;
  return (
    `warning: ${count} row(s) have a status payrecon does not know (${which}); they are stored as "unknown" and reconcile will report them.\n` +
    `  known statuses (any case): ${knownStatusStrings(config.PROVIDER_STATUS_MAP).join(', ')}\n` +
    `  to map one, set e.g. PROVIDER_STATUS_MAP="${first}=success" (categories: pending, success, failed)\n`
  );
}

function parseKind(v: string): Direction {
  if (v !== 'payment' && v !== 'payout') throw new InvalidArgumentError('expected payment or payout');
  return v;
}

const columnsHelp = (kind: Direction) =>
  `  ${kind}: ${IMPORT_COLUMNS[kind].required.join(', ')}; optional ${IMPORT_COLUMNS[kind].optional.join(', ')}`;

export function registerImport(program: Command): void {
  program
    .command('import')
    .description("insert the merchant's orders from a CSV file (header row first); bad rows are reported, good rows inserted")
    .addHelpText(
      'after',
      examplesHelp(['payrecon import orders.csv --kind payment', 'payrecon import payouts.csv --kind payout --json > import-result.json']),
    )
    .argument('<file.csv>', 'CSV file with a header row')
    .requiredOption('--kind <kind>', 'payment or payout', parseKind)
    .option('--account <id>', 'the account of rows without an account column (needed for them when several accounts are configured)')
    .option('--json', 'print {kind, rows, inserted, rejected: [{line, reason}], unknownStatuses: {status: rows}} as JSON')
    .addHelpText(
      'after',
      `
Columns (by header name, any order):
${columnsHelp('payment')}
${columnsHelp('payout')}
Rules: merchant_ref and transaction_ref UUID-shaped and unique (in the file and the database; transaction_ref across
accounts: one already held by another account is refused, naming that account; merchant_ref too, unless
\`payrecon accounts refs-per-account\` made it unique per account);
account (optional column): one of the configured accounts (ACCOUNTS_FILE), else --account, else the only account;
currency INR, NGN or IDR (any case, stored upper case); amounts non-negative decimals with at most the currency's 2 decimals;
status non-empty, matched in any case against the known strings:
  ${Object.keys(DEFAULT_STATUS_MAP).join(', ')}
  plus those PROVIDER_STATUS_MAP adds; any other string is stored as "unknown", with a warning naming the count;
created_at/updated_at/finalized_at ISO-8601 with an offset (2024-03-01T10:15:00+05:30);
text without control characters and not starting with = + - @ (spreadsheet formulas).
finalized_at defaults to updated_at (itself defaulting to created_at) when the status is final.
Each good row is inserted whole; each bad row is listed with its line number.

Exit status: 0 every row inserted; 3 any row rejected, a bad header, or an unmigrated database.
${envHelp([...DB_ENV, 'PROVIDER_STATUS_MAP', 'ACCOUNTS_FILE'])}`,
    )
    .action(async (file: string, opts: ImportCommandOptions) => {
      const result = await runImport(file, opts);
      if (result.rejected.length) process.exitCode = EXIT.USAGE;
    });
}
