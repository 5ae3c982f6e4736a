import fs from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../config/config.ts';
import { merchantRefPhase, type MerchantRefPhase, type MerchantRefScopeState } from '../db/merchant-ref-scope.ts';
import type { PrepareStep } from '../db/merchant-ref-prepare.ts';
import { printOut } from '../log/terminal.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { messageOf, UsageError } from '../domain/errors.ts';

export const REFS_PER_ACCOUNT_COMMAND = 'payrecon accounts refs-per-account';
const MERCHANT_UPSERT = 'ON CONFLICT (account_id, merchant_ref)';
const TABLES = ['payment_orders', 'payout_orders'];

/** One line saying where a merchantRef is unique, for `accounts list` and this command. */
export function scopeLine(state: MerchantRefScopeState): string {
  const phase = merchantRefPhase(state);
  if (phase === 'database')
    return `merchantRef: unique across accounts (the default; \`${REFS_PER_ACCOUNT_COMMAND}\` makes it unique per account)`;
  if (phase === 'prepared')
    return `merchantRef: unique across accounts, prepared for per account (ON CONFLICT (merchant_ref) and ${MERCHANT_UPSERT} both work; \`${REFS_PER_ACCOUNT_COMMAND} --yes\` finishes)`;
  const since = state.changedAt ? ` since ${state.changedAt.toISOString()}` : '';
  return `merchantRef: unique per account${since} (the merchant's writers use ${MERCHANT_UPSERT})`;
}

/**
 * The state as `accounts list` shows it, read without creating anything: no embedded database directory
 * yet, an unmigrated or unreachable database, or one in use by another process is "not read", with why.
 */
export async function readScopeQuietly(
  config: Config,
): Promise<{ state: MerchantRefScopeState; phase: MerchantRefPhase } | { unread: string }> {
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
    const state = await merchantRefScopeState(db.knex);
    return { state, phase: merchantRefPhase(state) };
  } catch (err) {
    return { unread: messageOf(err).split('\n')[0] };
  } finally {
    await db?.close();
  }
}

function plan(state: MerchantRefScopeState, accountIds: readonly string[]): string {
  const prepared = merchantRefPhase(state) === 'prepared';
  const dropped = state.globalIndexOn.map((t) => `${t}_merchant_ref_key`).join(', ') || '(none left: only the record changes)';
  const built = TABLES.map((t) => `${t}_account_merchant_ref_key`).join(', ');
  const one =
    accountIds.length === 1
      ? `Only one account is configured (${accountIds[0]}): nothing needs this yet; it is allowed, ahead of a second account.\n`
      : '';
  return `${scopeLine(state)}
${one}Two steps:
  1. --prepare${prepared ? ' (done)' : ''}: builds the unique indexes (merchantRef per account)
       ${built}
     with CREATE UNIQUE INDEX CONCURRENTLY: writes go on meanwhile; the indexes cost each checked order one more index
     entry from then on. merchantRef stays unique across accounts; ON CONFLICT (merchant_ref) and
     ${MERCHANT_UPSERT} both work from then on.
  2. Then every system of the merchant's that writes payment_orders or payout_orders changes to
       ${MERCHANT_UPSERT}   instead of   ON CONFLICT (merchant_ref)
     (the latter fails after step 3: "there is no unique or exclusion constraint matching the ON CONFLICT specification").
  3. --yes: in one transaction, drops the unique indexes (merchantRef unique across accounts)
       ${dropped}
     and records the scope "per account" (payrecon doctor and payrecon accounts list show it). Refused before step 1.
Forward-only after step 3: no command puts the database-wide index back.
Nothing changed; run again with ${prepared ? '--yes' : '--prepare'}.
`;
}

const stepLine = (s: PrepareStep): string =>
  s.did === 'already'
    ? `${s.index}: already there`
    : s.did === 'built'
      ? `built ${s.index} (concurrently)`
      : `${s.index}: an unfinished build (INVALID, left by an interrupted --prepare) was dropped and built again`;

export function registerRefsPerAccount(accounts: Command): void {
  accounts
    .command('refs-per-account')
    .description(
      "make merchantRef unique per account instead of across the database: --prepare, then --yes (forward-only; the merchant's writers change in between)",
    )
    .option('--prepare', `step 1: build the per-account unique indexes concurrently (writes go on); both ON CONFLICT forms then work`)
    .option('--yes', `step 3: drop the database-wide unique indexes (refused before --prepare; the writers say ${MERCHANT_UPSERT} first)`)
    .addHelpText(
      'after',
      examplesHelp([REFS_PER_ACCOUNT_COMMAND, `${REFS_PER_ACCOUNT_COMMAND} --prepare`, `${REFS_PER_ACCOUNT_COMMAND} --yes`]),
    )
    .addHelpText(
      'after',
      `
Without an option: prints both steps and what the merchant must change between them, changes nothing, exit 3.
Two accounts may then each hold an order of the same merchantRef; transactionRef stays unique across accounts.
--prepare builds <table>_account_merchant_ref_key on payment_orders and payout_orders with CREATE UNIQUE INDEX
CONCURRENTLY (no transaction; writes go on; a build longer than DATABASE_QUERY_TIMEOUT_MS fails: raise it for the
command). Idempotent; an INVALID index left by an interrupted build is dropped and built again, and it says so.
--yes drops the database-wide unique indexes on merchant_ref in one transaction (a lock timeout of 10 s: run again
if the tables were busy) and records the scope; refused, naming --prepare, unless both per-account indexes are valid.
Idempotent: once done, it says so and changes nothing. There is no way back in payrecon (forward-only).
Allowed with one account too, though nothing needs it until a second account shares refs.
Exit: 0 done (or already done), 3 without an option, with both, --yes before --prepare, or an unmigrated database;
2 the database failed or another run of this command holds its lock.
${envHelp([...DB_ENV, 'ACCOUNTS_FILE'])}`,
    )
    .action(async (opts: { prepare?: boolean; yes?: boolean }) => {
      if (opts.prepare && opts.yes)
        throw new UsageError(
          "--prepare and --yes are two steps: the merchant's writers change to ON CONFLICT (account_id, merchant_ref) between them",
        );
      const [{ withJob }, scope, { preparePerAccountRefs }, { withJobLock }, { configuredAccounts }] = await Promise.all([
        import('../runtime/with-job.ts'),
        import('../db/merchant-ref-scope.ts'),
        import('../db/merchant-ref-prepare.ts'),
        import('../db/locks.ts'),
        import('../config/accounts.ts'),
      ]);
      process.exitCode = await withJob('accounts', {}, async ({ db, config }) => {
        const state = await scope.merchantRefScopeState(db.knex);
        const phase = merchantRefPhase(state);
        if (phase === 'account' && state.recorded === 'account' && state.accountIndexOn.length === TABLES.length) {
          printOut(`${scopeLine(state)}; nothing to do\n`);
          return EXIT.OK;
        }
        if (!opts.prepare && !opts.yes) {
          printOut(
            plan(
              state,
              configuredAccounts(config).map((a) => a.id),
            ),
          );
          return EXIT.USAGE;
        }
        // One run at a time: a second --prepare would take the first one's build for an interrupted leftover.
        const run = await withJobLock(db, 'refs-per-account', async () => {
          if (opts.prepare) {
            await preparePerAccountRefs(db.knex, (step) => printOut(`${stepLine(step)}\n`));
            const after = await scope.merchantRefScopeState(db.knex);
            const next =
              merchantRefPhase(after) === 'prepared'
                ? `\nNext, once every writer says ${MERCHANT_UPSERT}: ${REFS_PER_ACCOUNT_COMMAND} --yes`
                : '';
            printOut(`${scopeLine(after)}${next}\n`);
            return EXIT.OK;
          }
          const done = await scope.switchToPerAccountRefs(db.knex);
          const dropped = done.dropped.length ? `dropped ${done.dropped.join(', ')}; ` : '';
          printOut(`${dropped}${scopeLine(await scope.merchantRefScopeState(db.knex))}\n`);
          return EXIT.OK;
        });
        if (!run.acquired)
          throw new Error(`another \`${REFS_PER_ACCOUNT_COMMAND}\` is running on this database; run again once it has ended`);
        return run.result ?? EXIT.OK;
      });
    });
}
