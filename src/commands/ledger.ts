import type { Command } from 'commander';
import { printOut } from '../log/terminal.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';

const ACCOUNT_HELP = 'the account whose ledger this is, with its chart of accounts (required when several accounts are configured)';

export function registerLedger(program: Command): void {
  const ledger = program
    .command('ledger')
    .description('what the journal has posted: the posting files in the order to post them, and the trial balance as of any of them');
  ledger
    .command('postings')
    .description('the posting files written so far (journal_posting.csv of each report version), in the order to post them')
    .option('--json', 'print them as JSON')
    .option('--account <id>', ACCOUNT_HELP)
    .addHelpText('after', envHelp([...DB_ENV]))
    .action(async (opts: { json?: boolean; account?: string }) => {
      const { ledgerPostingsJob } = await import('../services/ledger.ts');
      const list = await ledgerPostingsJob({ account: opts.account });
      if (opts.json) return printOut(`${JSON.stringify(list, null, 2)}\n`);
      if (list.length === 0) return printOut('no posting file written yet\n');
      printOut(
        `${list.map((p) => `${String(p.seq).padStart(4)}  ${p.date}/v${p.version}  written ${p.postedOn}  ${p.lines} lines`).join('\n')}\n`,
      );
    });
  ledger
    .command('trial-balance')
    .description('each account’s balance per currency once every posting file up to one is posted, in order')
    .addHelpText(
      'after',
      examplesHelp([
        'payrecon ledger trial-balance                      # as of the last posting file',
        'payrecon ledger trial-balance --as-of 2026-11-21/v2',
      ]),
    )
    .option('--as-of <DATE/vN>', 'the report version whose posting file is the last posted (default: the last written)')
    .option('--json', 'print it as JSON')
    .option('--account <id>', ACCOUNT_HELP)
    .addHelpText('after', envHelp([...DB_ENV, 'JOURNAL_ACCOUNTS_FILE']))
    .action(async (opts: { asOf?: string; json?: boolean; account?: string }) => {
      const { ledgerTrialBalanceJob } = await import('../services/ledger.ts');
      const tb = await ledgerTrialBalanceJob({ asOf: opts.asOf, account: opts.account });
      if (opts.json) return printOut(`${JSON.stringify(tb, null, 2)}\n`);
      if (!tb.asOf) return printOut('no posting file written yet\n');
      const rows = tb.rows.map((r) => [r.currency, r.accountCode, r.accountName, r.debits, r.credits, r.balance]);
      const head = ['currency', 'code', 'account', 'debits', 'credits', 'balance'];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
      const fmt = (r: string[]) => r.map((c, i) => (i >= 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
      printOut(`trial balance as of ${tb.asOf.file} (posting ${tb.asOf.seq})\n${fmt(head)}\n${rows.map(fmt).join('\n')}\n`);
    });
}
