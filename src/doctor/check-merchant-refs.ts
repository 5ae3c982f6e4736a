import type { Config } from '../config/config.ts';
import { configuredAccounts } from '../config/accounts.ts';
import { messageOf } from '../domain/errors.ts';
import { openDatabase } from '../db/connect.ts';
import { merchantRefPhase, merchantRefScopeState, ORDER_TABLES, type MerchantRefScopeState } from '../db/merchant-ref-scope.ts';
import type { CheckResult } from './checks.ts';

const COMMAND = 'payrecon accounts refs-per-account';
const NAME = 'merchant refs';

/**
 * Where a merchantRef is unique (sql/055), and that the indexes agree with it in one of the three states:
 * across accounts (the database-wide index only), prepared (both) or per account (the per-account index
 * only, as recorded by the switch). Anything in between is a failure with the step that ends it.
 */
export async function checkMerchantRefScope(config: Config): Promise<CheckResult> {
  let db;
  try {
    db = await openDatabase(config, { applicationName: 'payrecon-doctor', poolMax: 1 });
    return judge(await merchantRefScopeState(db.knex), configuredAccounts(config).length);
  } catch (err) {
    return { name: NAME, status: 'skipped', detail: `not checked: ${messageOf(err).split('\n')[0]}` };
  } finally {
    await db?.close();
  }
}

function judge(state: MerchantRefScopeState, accounts: number): CheckResult {
  const failed = (detail: string, fix: string): CheckResult => ({ name: NAME, status: 'failed', detail, fix });
  const ok = (detail: string): CheckResult => ({ name: NAME, status: 'ok', detail });
  const accountIndexMissingOn = ORDER_TABLES.filter((t) => !state.accountIndexOn.includes(t));
  if (state.accountIndexInvalidOn.length)
    return failed(
      `the per-account unique index on ${state.accountIndexInvalidOn.join(', ')} is INVALID (a build interrupted): it slows writes and serves nothing`,
      `run \`${COMMAND} --prepare\` again: it drops the unfinished index and builds it again`,
    );
  if (state.recorded === 'account') {
    if (state.globalIndexOn.length)
      return failed(
        `recorded as unique per account, but ${state.globalIndexOn.join(', ')} still refuse a merchantRef another account holds`,
        `run \`${COMMAND} --yes\` again: it drops what is left`,
      );
    if (accountIndexMissingOn.length)
      return failed(
        `recorded as unique per account, but the per-account unique index is missing on ${accountIndexMissingOn.join(', ')}: merchantRef is unique nowhere there`,
        `run \`${COMMAND} --prepare\`: it builds it again`,
      );
    const since = state.changedAt ? ` since ${state.changedAt.toISOString()}` : '';
    return ok(`merchantRef unique per account${since}; transactionRef unique across accounts`);
  }
  const globalMissingOn = ORDER_TABLES.filter((t) => !state.globalIndexOn.includes(t));
  if (globalMissingOn.length)
    return failed(
      `recorded as unique across accounts, but the database-wide unique index on merchant_ref is missing on ${globalMissingOn.join(', ')}`,
      `if unique per account was meant, run \`${COMMAND} --prepare\` then \`--yes\` (it records it); else create it again as sql/035 does`,
    );
  if (merchantRefPhase(state) === 'prepared')
    return ok(
      `merchantRef unique across accounts, prepared for per account (ON CONFLICT (merchant_ref) and (account_id, merchant_ref) both work); \`${COMMAND} --yes\` finishes`,
    );
  if (state.accountIndexOn.length)
    return failed(
      `half prepared: the per-account unique index is on ${state.accountIndexOn.join(', ')} only`,
      `run \`${COMMAND} --prepare\` again to finish it`,
    );
  const several = accounts > 1 ? `; two accounts cannot share one until \`${COMMAND}\`` : '';
  return ok(`merchantRef unique across accounts (the default)${several}`);
}
