import fs from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../config/config.ts';
import type { MerchantRefScopeState } from '../db/merchant-ref-scope.ts';
import { printOut } from '../log/terminal.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { messageOf } from '../domain/errors.ts';

export const REFS_PER_ACCOUNT_COMMAND = 'payrecon accounts refs-per-account';
const MERCHANT_UPSERT = 'ON CONFLICT (account_id, merchant_ref)';

/** One line saying where a merchantRef is unique, for `accounts list` and the switch. */
export function scopeLine(state: MerchantRefScopeState): string {
  if (state.globalIndexOn.length)
    return `merchantRef: unique across accounts (the default; \`${REFS_PER_ACCOUNT_COMMAND}\` makes it unique per account)`;
  const since = state.changedAt ? ` since ${state.changedAt.toISOString()}` : '';
  return `merchantRef: unique per account${since} (the merchant's writers use ${MERCHANT_UPSERT})`;
}

/**
 * The scope as `accounts list` shows it, read without creating anything: no embedded database directory
 * yet, an unmigrated or unreachable database, or one in use by another process is "not read", with why.
 */
export async function readScopeQuietly(config: Config): Promise<{ state: MerchantRefScopeState } | { unread: string }> {
  if (!config.DATABASE_URL && !fs.existsSync(config.PGLITE_DIR)) return { unread: `no database yet (${config.PGLITE_DIR})` };
  const [{ openDatabase }, { pendingMigrations }, { merchantRefScopeState }] = await Promise.all([
    import('../db/connect.ts'),
    import('../db/migrate.ts'),
    import('../db/merchant-ref-scope.ts'),
  ]);
  let db;
  try {
    db = await openDatabase(config, { applicationName: 'payrecon-accounts', poolMax: 1 });
    if ((await pendingMigrations(db)).length) return { unread: 'the database is not migrated (`payrecon migrate`)' };
    return { state: await merchantRefScopeState(db.knex) };
  } catch (err) {
    return { unread: messageOf(err).split('\n')[0] };
  } finally {
    await db?.close();
  }
}

function plan(state: MerchantRefScopeState, accountIds: readonly string[]): string {
  const indexes = state.globalIndexOn.map((t) => `${t}_merchant_ref_key`).join(', ') || '(none left: only the record changes)';
  const kept = ['payment_orders', 'payout_orders'].map((t) => `${t}_account_merchant_ref_key`).join(', ');
  const one =
    accountIds.length === 1
      ? `Only one account is configured (${accountIds[0]}): nothing needs this yet; it is allowed, ahead of a second account.\n`
      : '';
  return `${scopeLine(state)}
${one}With --yes, this command will, in one transaction:
  - drop the unique indexes ${indexes} (merchantRef unique across accounts);
  - keep ${kept} (unique per account, sql/055);
  - record the scope "per account" (payrecon doctor and payrecon accounts list show it).
Before that, every system of the merchant's that writes payment_orders or payout_orders must say
  ${MERCHANT_UPSERT}   instead of   ON CONFLICT (merchant_ref)
(the latter fails once the index is gone: "there is no unique or exclusion constraint matching the ON CONFLICT specification").
Forward-only: no command puts the database-wide index back.
Nothing changed; run again with --yes to do it.
`;
}

export function registerRefsPerAccount(accounts: Command): void {
  accounts
    .command('refs-per-account')
    .description("make merchantRef unique per account instead of across the database (forward-only; the merchant's writers change first)")
    .option('--yes', 'do it (without: print what it would do and what the merchant must change first, change nothing, exit 3)')
    .addHelpText('after', examplesHelp([REFS_PER_ACCOUNT_COMMAND, `${REFS_PER_ACCOUNT_COMMAND} --yes`]))
    .addHelpText(
      'after',
      `
Two accounts may then each hold an order of the same merchantRef; transactionRef stays unique across accounts.
Drops the database-wide unique indexes on merchant_ref of payment_orders and payout_orders in one transaction
(a lock timeout of 10 s: run again if the tables were busy); the per-account unique indexes of sql/055 stay.
Idempotent: once done, it says so and changes nothing. There is no way back in payrecon (forward-only).
Allowed with one account too, though nothing needs it until a second account shares refs.
Exit: 0 done (or already done), 3 without --yes (nothing changed) or an unmigrated database, 2 the database failed.
${envHelp([...DB_ENV, 'ACCOUNTS_FILE'])}`,
    )
    .action(async (opts: { yes?: boolean }) => {
      const [{ withJob }, scope, { configuredAccounts }] = await Promise.all([
        import('../runtime/with-job.ts'),
        import('../db/merchant-ref-scope.ts'),
        import('../config/accounts.ts'),
      ]);
      process.exitCode = await withJob('accounts', {}, async ({ db, config }) => {
        const state = await scope.merchantRefScopeState(db.knex);
        if (state.globalIndexOn.length === 0 && state.recorded === 'account') {
          printOut(`${scopeLine(state)}; nothing to do\n`);
          return EXIT.OK;
        }
        if (!opts.yes) {
          printOut(
            plan(
              state,
              configuredAccounts(config).map((a) => a.id),
            ),
          );
          return EXIT.USAGE;
        }
        const done = await scope.switchToPerAccountRefs(db.knex);
        const dropped = done.dropped.length ? `dropped ${done.dropped.join(', ')}; ` : '';
        printOut(`${dropped}${scopeLine(await scope.merchantRefScopeState(db.knex))}\n`);
        return EXIT.OK;
      });
    });
}
