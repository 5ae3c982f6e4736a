import { printOut } from '../log/terminal.ts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { BANK_CURRENCIES, type BankSyncResult } from '../banks/sync.ts';
import { renderTable } from '../cli-ui/table.ts';
import type { BankCodeRow } from '../db/bank-codes.ts';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';

export function registerBanks(program: Command): void {
  const banks = program
    .command('banks')
    .description("the provider's bank code lists (IDR, NGN) that payouts must use")
    .addHelpText('after', examplesHelp(['payrecon banks sync', 'payrecon banks list --currency NGN --search access']));

  banks
    .command('sync')
    .description('fetch the IDR and NGN lists; add new codes, record renames, mark codes no longer listed inactive')
    .option('--json', 'print what changed as JSON')
    .addHelpText(
      'after',
      `
A code that reappears is active again. An empty list from the provider is refused (the stored
codes are kept), since it would make every payout fail the BANK_CODE check.
Examples:
  payrecon banks sync
  payrecon banks sync --json
Exit: 0 both lists synced (or skipped: another run holds the lock); 2 a list could not be
      fetched or was refused, credentials refused; 3 bad configuration.
${envHelp([...DB_ENV, ...PROVIDER_ENV])}`,
    )
    .action(async (opts: { json?: boolean }) => {
      const { bankSyncJob } = await import('../services/bank-codes.ts');
      const { exitCode, result } = await bankSyncJob();
      printOut(opts.json ? `${JSON.stringify(result, null, 2)}\n` : describeSync(result));
      process.exitCode = exitCode;
    });

  banks
    .command('list')
    .description('show the stored bank codes of a currency')
    .addOption(new Option('--currency <code>', 'IDR or NGN').argParser(parseBankCurrency).makeOptionMandatory())
    .option('--search <text>', 'names containing the text (any case), or codes starting with it')
    .option('--all', 'include codes the provider no longer lists')
    .option('--json', 'print the rows as JSON')
    .addHelpText(
      'after',
      `
Examples:
  payrecon banks list --currency NGN
  payrecon banks list --currency IDR --search mandiri
  payrecon banks list --currency NGN --all --json
Exit: 0 listed (possibly nothing); 3 bad arguments or configuration.
${envHelp(DB_ENV)}`,
    )
    .action(async (opts: { currency: string; search?: string; all?: boolean; json?: boolean }) => {
      const { bankListJob } = await import('../services/bank-codes.ts');
      const rows = await bankListJob({ currency: opts.currency, search: opts.search, includeInactive: opts.all ?? false });
      printOut(opts.json ? `${JSON.stringify(rows, null, 2)}\n` : describeList(rows, opts.all ?? false));
    });
}

/** commander's choices() is replaced by any later argParser(), so the one parser checks and upper-cases. */
function parseBankCurrency(value: string): string {
  const currency = value.trim().toUpperCase();
  if (currency === 'INR') {
    throw new InvalidArgumentError(
      'INR has no bank list: INR payouts carry an IFSC branch code, which the provider does not list. Bank lists exist for IDR and NGN.',
    );
  }
  if (!(BANK_CURRENCIES as readonly string[]).includes(currency))
    throw new InvalidArgumentError(`expected IDR or NGN (got ${JSON.stringify(value)})`);
  return currency;
}

function describeList(rows: readonly BankCodeRow[], all: boolean): string {
  if (rows.length === 0) return 'no bank codes stored that match (run `payrecon banks sync` first?)\n';
  const table = rows.map((r) => [r.bankCode, r.bankName, ...(all ? [r.active ? 'active' : 'inactive'] : []), r.lastSeenAt.toISOString()]);
  // Codes are text with meaningful leading zeros: quote-free but never right-aligned as numbers.
  return renderTable(
    ['code', 'name', ...(all ? ['state'] : []), 'last seen'],
    table.map((r) => [`${r[0]} `, ...r.slice(1)]),
  );
}

export function describeSync(r: BankSyncResult): string {
  if (r.status === 'skipped') return 'banks sync: another run holds the lock; nothing done\n';
  const lines = [`banks sync run ${r.runId}: ${r.status}`];
  for (const s of r.synced) {
    lines.push(
      `${s.currency}: ${s.listed} listed, ${s.added.length} added, ${s.renamed.length} renamed, ${s.removed.length} removed, ${s.reactivated.length} listed again`,
    );
    lines.push(...capped(s.added.map((a) => `  + ${a.bankCode}  ${a.bankName}`)));
    lines.push(...capped(s.reactivated.map((a) => `  ^ ${a.bankCode}  ${a.bankName}`)));
    lines.push(...capped(s.renamed.map((n) => `  ~ ${n.bankCode}  ${n.from} -> ${n.to}`)));
    lines.push(...capped(s.removed.map((d) => `  - ${d.bankCode}  ${d.bankName}`)));
    if (s.duplicates.length) lines.push(`  listed twice by the provider: ${s.duplicates.join(', ')}`);
  }
  for (const f of r.failures) lines.push(`${f.currency} failed (${f.step}): ${f.message}`);
  if (r.status === 'credentials' && r.error) lines.push(r.error);
  return `${lines.join('\n')}\n`;
}

// A first sync adds every code: the screen shows a sample, --json has them all.
const SHOWN = 20;
const capped = (lines: string[]): string[] =>
  lines.length <= SHOWN ? lines : [...lines.slice(0, SHOWN), `  ... and ${lines.length - SHOWN} more (--json lists all)`];
