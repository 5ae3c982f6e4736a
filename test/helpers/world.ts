/**
 * A merchant world for integration tests: a throw-away database, the sandbox over real HTTP with
 * fast, deterministic lifecycles, a client pointed at it, and orders seeded through initiate.
 */
import { CHECK_AT_ONCE_ENV, createTestDatabase, type TestDatabase, type TestDatabaseOptions } from './db.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.ts';
import { SandboxControl } from '../../src/sandbox/control-client.ts';
import { createProviderClient } from '../../src/provider/from-config.ts';
import type { ProviderClient, ProviderClientOptions } from '../../src/provider/client.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';

export interface World {
  t: TestDatabase;
  sandbox: Sandbox;
  control: SandboxControl;
  client: ProviderClient;
  /** The test database's config pointed at the sandbox. */
  config: Config;
  /** Environment for a child `payrecon` process using the same database and sandbox. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Every order becomes final one second after initiate, at full amount: discrepancies are only the ones a test injects. */
export const CLEAN_LIFECYCLE: SandboxOptions['lifecycle'] = {
  paymentDelayMs: { min: 1000, max: 1000 },
  payoutDelayMs: { min: 1000, max: 1000 },
  paymentFailedShare: 0,
  paymentPartialShare: 0,
  paymentStuckShare: 0,
  payoutFailedShare: 0,
  payoutStuckShare: 0,
  utrMissingShare: 0,
};

export async function createWorld(
  name: string,
  opts: { db?: TestDatabaseOptions; sandbox?: SandboxOptions; env?: Record<string, string>; client?: Partial<ProviderClientOptions> } = {},
): Promise<World> {
  const t = await createTestDatabase(name, opts.db);
  const sandbox = await startSandbox({ lifecycle: CLEAN_LIFECYCLE, ...opts.sandbox });
  const env: Record<string, string> = {
    ...(t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR }),
    PROVIDER_BASE_URL: sandbox.url,
    LOG_LEVEL: 'warn',
    ...CHECK_AT_ONCE_ENV,
    ...opts.db?.env,
    ...opts.env,
  };
  const config = loadConfig(env);
  const client = await createProviderClient(config, { logger: silentLogger, retryBaseMs: 5, maxRetries: 2, ...opts.client });
  return {
    t,
    sandbox,
    control: new SandboxControl(sandbox.url),
    client,
    config,
    env,
    close: async () => {
      await client.close();
      await sandbox.close();
      await t.drop();
    },
  };
}
