import type { Config } from '../config/config.ts';
import { configuredAccounts } from '../config/accounts.ts';
import { messageOf } from '../domain/errors.ts';
import { openDatabase } from '../db/connect.ts';
import { merchantRefScopeState } from '../db/merchant-ref-scope.ts';
import type { CheckResult } from './checks.ts';

/**
 * Where a merchantRef is unique (sql/055), and that the indexes agree with what was recorded: a per-account
 * index missing, or a database-wide one back after `payrecon accounts refs-per-account`, is a failure.
 */
export async function checkMerchantRefScope(config: Config): Promise<CheckResult> {
  const name = 'merchant refs';
  let db;
  try {
    db = await openDatabase(config, { applicationName: 'payrecon-doctor', poolMax: 1 });
    const state = await merchantRefScopeState(db.knex);
    if (state.accountIndexMissingOn.length)
      return {
        name,
        status: 'failed',
        detail: `the per-account unique index on merchant_ref is missing on ${state.accountIndexMissingOn.join(', ')}`,
        fix: 'run `payrecon migrate` (sql/055 creates it); if it was dropped by hand, create it again as sql/055 does',
      };
    if (state.recorded === 'account' && state.globalIndexOn.length)
      return {
        name,
        status: 'failed',
        detail: `recorded as unique per account, but ${state.globalIndexOn.join(', ')} still refuse a merchantRef another account holds`,
        fix: 'run `payrecon accounts refs-per-account --yes` again: it drops what is left',
      };
    if (state.globalIndexOn.length) {
      const several =
        configuredAccounts(config).length > 1 ? '; two accounts cannot share one until `payrecon accounts refs-per-account`' : '';
      return { name, status: 'ok', detail: `merchantRef unique across accounts (the default)${several}` };
    }
    const since = state.changedAt ? ` since ${state.changedAt.toISOString()}` : '';
    return { name, status: 'ok', detail: `merchantRef unique per account${since}; transactionRef unique across accounts` };
  } catch (err) {
    return { name, status: 'skipped', detail: `not checked: ${messageOf(err).split('\n')[0]}` };
  } finally {
    await db?.close();
  }
}
