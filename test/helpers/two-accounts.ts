import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { accountFor } from '../../src/config/accounts.ts';
import { createAccountClient } from '../../src/provider/from-config.ts';
import { seedMerchant, type SeededOrder } from '../../src/demo/seed-merchant.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.ts';
import { CHECK_AT_ONCE_ENV, type TestDatabase } from './db.ts';
import { CLEAN_LIFECYCLE } from './world.ts';

export interface TwoAccounts {
  sandbox: Sandbox;
  config: Config;
  close(): Promise<void>;
}

/** What a test adds: variables of the config, and keys of an account's entry in ACCOUNTS_FILE (by id). */
export interface TwoAccountsExtra {
  env?: Record<string, string>;
  accounts?: Record<string, Record<string, unknown>>;
}

/** One sandbox serving M-IN and M-NG, and a config whose ACCOUNTS_FILE names both (in-main, ng-brand) on `t`. */
export async function startTwoAccounts(t: TestDatabase, extra: TwoAccountsExtra = {}): Promise<TwoAccounts> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-two-accounts-'));
  const sandbox = await startSandbox({
    lifecycle: CLEAN_LIFECYCLE,
    merchants: [
      { id: 'M-IN', secret: 'secret-in' },
      { id: 'M-NG', secret: 'secret-ng' },
    ],
  });
  const file = path.join(dir, 'accounts.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      accounts: [
        { id: 'in-main', baseUrl: sandbox.url, merchantId: 'M-IN', secret: { env: 'IN_SECRET' }, ...extra.accounts?.['in-main'] },
        { id: 'ng-brand', baseUrl: sandbox.url, merchantId: 'M-NG', secret: { env: 'NG_SECRET' }, ...extra.accounts?.['ng-brand'] },
      ],
    }),
  );
  const config = loadConfig({
    ...CHECK_AT_ONCE_ENV,
    ...(t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR }),
    ACCOUNTS_FILE: file,
    IN_SECRET: 'secret-in',
    NG_SECRET: 'secret-ng',
    LOG_LEVEL: 'silent',
    ...extra.env,
  });
  return {
    sandbox,
    config,
    close: async () => {
      await sandbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The account's merchant creates 3 payments and 2 payouts at the provider with its own client; they are recorded under the account. */
export async function seedAccountOrders(t: TestDatabase, config: Config, id: string, seed: number): Promise<SeededOrder[]> {
  const client = await createAccountClient(config, accountFor(config, id), { logger: silentLogger });
  try {
    // Recorded under the account as inserted: two accounts seeded alike share merchantRefs, so no update by ref.
    return await seedMerchant(t.db.knex, client, { payments: 3, payouts: 2, seed, accountId: id });
  } finally {
    await client.close();
  }
}
