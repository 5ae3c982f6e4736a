// The bank-codes job: sync from the provider, and list what is stored.
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import type { ProviderClientOptions } from '../provider/client.ts';
import { listBankCodes, type BankCodeRow, type BankListQuery } from '../db/bank-codes.ts';
import { syncBankCodes, type BankSyncResult } from '../banks/sync.ts';
import { EXIT } from '../domain/exit-codes.ts';

export interface BankSyncJobOptions {
  provider?: Partial<ProviderClientOptions>;
  /** The account whose client fetches the lists; unset: the only one (several: the scheduler names one). */
  account?: string;
  clock?: () => Date;
}

export async function bankSyncJob(
  options: BankSyncJobOptions = {},
  context: JobContextOptions = {},
): Promise<{ exitCode: number; result: BankSyncResult }> {
  return withJob('bank-codes', { ...context, provider: options.provider, account: options.account }, async (deps) => {
    const { db, logger } = deps;
    const client = await deps.provider();
    const result = await syncBankCodes({ db, client, clock: options.clock ?? (() => new Date()), logger });
    const ok = result.status === 'completed' || result.status === 'skipped';
    return { exitCode: ok ? EXIT.OK : EXIT.INCOMPLETE, result };
  });
}

export async function bankListJob(query: BankListQuery, context: JobContextOptions = {}): Promise<BankCodeRow[]> {
  return withJob('banks-list', context, ({ db }) => listBankCodes(db.knex, query));
}
