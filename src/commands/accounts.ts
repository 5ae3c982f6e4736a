import type { Command } from 'commander';
import { printOut } from '../log/terminal.ts';
import { renderTable } from '../cli-ui/table.ts';
import { envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { readScopeQuietly, registerRefsPerAccount, scopeLine } from './accounts-refs.ts';

export function registerAccounts(program: Command): void {
  const accounts = program.command('accounts').description('the provider accounts (MerchantIDs) this deployment serves');
  accounts
    .command('list')
    .description('each account: id, name, MerchantID, provider, currencies, report recipients, rate limit, where its secret comes from')
    .option('--json', 'print them as JSON')
    .addHelpText('after', examplesHelp(['payrecon accounts list', "payrecon accounts list --json | jq '.[].id'"]))
    .addHelpText(
      'after',
      `
With no ACCOUNTS_FILE, the PROVIDER_* variables define the one account "default". A secret is never shown,
only the variable or file it is read from. Below the table, where a merchantRef is unique (across accounts, or per
account after \`payrecon accounts refs-per-account\`), read from the database when there is one (JSON: merchantRefScope,
"database", "prepared" (still across accounts, per-account indexes built), "account", or null when not read). Exit: 0 listed, 3 bad configuration (each problem naming the account and key).
${envHelp(['ACCOUNTS_FILE', 'PROVIDER_BASE_URL', 'PROVIDER_MERCHANT_ID', 'RECON_CURRENCIES', 'REPORT_EMAIL_TO', 'PROVIDER_RATE_LIMIT', 'DATABASE_URL'])}`,
    )
    .action(async (opts: { json?: boolean }) => {
      const [{ loadConfig }, { accountListing }] = await Promise.all([import('../config/config.ts'), import('../config/accounts.ts')]);
      const config = loadConfig();
      const list = accountListing(config);
      const scope = await readScopeQuietly(config);
      const merchantRefScope = 'state' in scope ? scope.phase : null;
      if (opts.json)
        printOut(
          `${JSON.stringify(
            list.map((a) => ({ ...a, merchantRefScope })),
            null,
            2,
          )}\n`,
        );
      else {
        printOut(
          renderTable(
            ['id', 'name', 'merchant id', 'provider', 'currencies', 'report to', 'rate/s', 'secret from'],
            list.map((a) => [
              a.id,
              a.displayName,
              a.merchantId,
              a.baseUrl ?? '(not set)',
              a.currencies.join(','),
              a.reportRecipients.join(',') || '-',
              a.rateLimitPerSec === 0 ? 'no cap' : String(a.rateLimitPerSec),
              a.secretFrom,
            ]),
          ),
        );
        printOut(`${'state' in scope ? scopeLine(scope.state) : `merchantRef scope: not read (${scope.unread})`}\n`);
      }
      process.exitCode = EXIT.OK;
    });
  registerRefsPerAccount(accounts);
}
