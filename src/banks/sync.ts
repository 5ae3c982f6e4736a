import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { loadBankCodes, replaceBankList } from '../db/bank-codes.ts';
import { withJobLock } from '../db/locks.ts';
import { createRun, finishRun, type RunStatus } from '../db/runs.ts';
import { CredentialsError } from '../provider/errors.ts';
import type { BankEntry } from '../provider/types.ts';
import { describeFailures, runStatusOf, unitFailure, type UnitFailure } from '../snapshot/outcome.ts';
import { diffBankLists, type BankRename } from './diff.ts';
import { messageOf } from '../domain/errors.ts';

export const BANK_CODES_JOB = 'bank-codes';
export const BANK_CURRENCIES = ['IDR', 'NGN'] as const;
export type BankCurrency = (typeof BANK_CURRENCIES)[number];

export interface BankSyncDeps {
  db: Db;
  client: { bankCodes(currency: BankCurrency): Promise<BankEntry[]> };
  clock: () => Date;
  logger: Logger;
}

export interface CurrencySync {
  currency: BankCurrency;
  /** Codes the provider lists now. */
  listed: number;
  added: BankEntry[];
  reactivated: BankEntry[];
  renamed: BankRename[];
  removed: BankEntry[];
  unchanged: number;
  duplicates: string[];
}

export interface BankSyncResult {
  status: Exclude<RunStatus, 'running'> | 'skipped';
  runId: string | null;
  synced: CurrencySync[];
  failures: UnitFailure[];
  error: string | null;
}

/**
 * `payrecon banks sync`: each currency's list replaces the stored one in its own transaction, so
 * one currency failing leaves the other's update in place. A run row records what changed.
 */
export async function syncBankCodes(deps: BankSyncDeps, currencies: readonly BankCurrency[] = BANK_CURRENCIES): Promise<BankSyncResult> {
  const locked = await withJobLock(deps.db, BANK_CODES_JOB, () => runSync(deps, currencies));
  if (locked.acquired) return locked.result!;
  deps.logger.info('another bank-codes run holds the lock; skipping');
  return { status: 'skipped', runId: null, synced: [], failures: [], error: null };
}

async function runSync(deps: BankSyncDeps, currencies: readonly BankCurrency[]): Promise<BankSyncResult> {
  const { db, logger } = deps;
  const run = await createRun(db.knex, BANK_CODES_JOB, { currencies }, { dryRun: false, now: deps.clock() });
  const synced: CurrencySync[] = [];
  const failures: UnitFailure[] = [];
  try {
    for (const currency of currencies) {
      let fetched: BankEntry[];
      try {
        fetched = await deps.client.bankCodes(currency);
      } catch (err) {
        if (err instanceof CredentialsError) throw err;
        failures.push(unitFailure(currency, 'bankCodes', err));
        logger.warn({ currency, err: messageOf(err) }, 'bank code list not fetched');
        continue;
      }
      const outcome = await syncCurrency(deps, currency, fetched);
      if ('failure' in outcome) failures.push(outcome.failure);
      else synced.push(outcome);
    }
  } catch (err) {
    const status = err instanceof CredentialsError ? 'credentials' : 'failed';
    const error = messageOf(err);
    await finishRun(db.knex, run.id, status, countsOf(synced, failures), error, deps.clock());
    if (status === 'credentials') return { status, runId: run.id, synced, failures, error };
    throw err;
  }
  const status = runStatusOf(failures, currencies.length);
  const error = describeFailures(failures);
  await finishRun(db.knex, run.id, status, countsOf(synced, failures), error, deps.clock());
  logger.info({ runId: run.id, status, counts: countsOf(synced, failures) }, 'bank codes synced');
  return { status, runId: run.id, synced, failures, error };
}

async function syncCurrency(
  deps: BankSyncDeps,
  currency: BankCurrency,
  fetched: BankEntry[],
): Promise<CurrencySync | { failure: UnitFailure }> {
  return deps.db.knex.transaction(async (trx) => {
    const stored = await loadBankCodes(trx, currency);
    const diff = diffBankLists(stored, fetched);
    // An empty answer would mark every code inactive and make reconcile flag every payout
    // BANK_CODE; a provider glitch is likelier than a country without banks.
    if (diff.entries.length === 0 && stored.some((s) => s.active)) {
      return { failure: unitFailure(currency, 'bankCodes', new Error('provider returned an empty list; stored codes kept')) };
    }
    await replaceBankList(trx, currency, diff.entries, deps.clock());
    return {
      currency,
      listed: diff.entries.length,
      added: diff.added,
      reactivated: diff.reactivated,
      renamed: diff.renamed,
      removed: diff.removed,
      unchanged: diff.unchanged,
      duplicates: diff.duplicates,
    };
  });
}

function countsOf(synced: readonly CurrencySync[], failures: readonly UnitFailure[]): Record<string, number> {
  const counts: Record<string, number> = { failed: failures.length };
  for (const s of synced) {
    counts[`${s.currency}:listed`] = s.listed;
    counts[`${s.currency}:added`] = s.added.length;
    counts[`${s.currency}:reactivated`] = s.reactivated.length;
    counts[`${s.currency}:renamed`] = s.renamed.length;
    counts[`${s.currency}:removed`] = s.removed.length;
  }
  return counts;
}
