// Thin entries of the bank-codes job: sync from the provider, and list what is stored.
import { openJobContext, type JobContextOptions } from '../runtime/job-context.ts';
import { createProviderClient } from '../provider/from-config.ts';
import type { ProviderClientOptions } from '../provider/client.ts';
import { listBankCodes, type BankCodeRow, type BankListQuery } from '../db/bank-codes.ts';
import { syncBankCodes, type BankSyncResult } from '../banks/sync.ts';
import { EXIT } from '../runtime/exit-codes.ts';

export interface BankSyncJobOptions {
  provider?: Partial<ProviderClientOptions>;
  clock?: () => Date;
}

export async function bankSyncJob(
  options: BankSyncJobOptions = {},
  context: JobContextOptions = {},
): Promise<{ exitCode: number; result: BankSyncResult }> {
  const ctx = await openJobContext('bank-codes', context);
  const { config, logger, db } = ctx;
  try {
    const client = await createProviderClient(config, { logger, ...options.provider });
    try {
      const result = await syncBankCodes({ db, client, clock: options.clock ?? (() => new Date()), logger });
      const ok = result.status === 'completed' || result.status === 'skipped';
      return { exitCode: ok ? EXIT.OK : EXIT.INCOMPLETE, result };
    } finally {
      await client.close();
    }
  } finally {
    await ctx.close();
  }
}

export async function bankListJob(query: BankListQuery, context: JobContextOptions = {}): Promise<BankCodeRow[]> {
  const ctx = await openJobContext('bank-codes', context);
  try {
    return await listBankCodes(ctx.db.knex, query);
  } finally {
    await ctx.close();
  }
}
