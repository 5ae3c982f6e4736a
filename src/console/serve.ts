import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/connect.ts';
import { buildConsole } from './app.ts';
import { startRerunWorker, type RerunWorkerDeps } from './rerun-worker.ts';
import { configuredAccounts } from '../config/accounts.ts';

export interface ServeConsoleOptions {
  db: Db;
  config: Config;
  logger: Logger;
  now?: () => Date;
  host?: string;
  port?: number;
  /** The day's reconcile and report, run by the rerun worker in this process. */
  reconcileDay: RerunWorkerDeps['reconcileDay'];
  reportDay: RerunWorkerDeps['reportDay'];
  /** Worker timings (tests shorten them). */
  pollMs?: number;
  lockRetryMs?: number;
  lockWaitMs?: number;
}

export interface RunningConsole {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** The console's web server and its rerun worker, in one process. close() stops both. */
export async function serveConsole(opts: ServeConsoleOptions): Promise<RunningConsole> {
  const now = opts.now ?? (() => new Date());
  const worker = startRerunWorker({
    db: opts.db,
    logger: opts.logger.child({ component: 'rerun-worker' }),
    now,
    reconcileDay: opts.reconcileDay,
    reportDay: opts.reportDay,
    perAccount: configuredAccounts(opts.config).length > 1,
    pollMs: opts.pollMs ?? 5_000,
    lockRetryMs: opts.lockRetryMs ?? 30_000,
    lockWaitMs: opts.lockWaitMs ?? 2 * 3_600_000,
  });
  const app = await buildConsole({ db: opts.db, config: opts.config, now, logger: opts.logger, onRerunQueued: () => worker.poke() });
  try {
    await app.listen({ host: opts.host ?? opts.config.CONSOLE_HOST, port: opts.port ?? opts.config.CONSOLE_PORT });
  } catch (err) {
    await worker.stop();
    throw err;
  }
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    app,
    url: `http://${host}:${address.port}`,
    close: async () => {
      await app.close();
      await worker.stop();
    },
  };
}
