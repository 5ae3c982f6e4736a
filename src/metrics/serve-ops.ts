import { queueSchemaFor } from '../db/queue.ts';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import type { PayreconMetrics } from './metrics.ts';
import { startOpsServer, type OpsServer } from './ops-server.ts';
import { databaseNotReady } from './readiness.ts';

/** How long a scrape or a readiness check waits for the database before answering without it. */
export const OPS_DB_TIMEOUT_MS = 2_000;

export interface ServeOpsOptions {
  db: Db;
  metrics: PayreconMetrics;
  logger: Logger;
  host: string;
  /** Undefined: not served. */
  port: number | undefined;
  /** The process's own readiness (e.g. the scheduler running): null when ready. */
  processNotReady?: () => string | null;
  /** Called with the address once listening (the CLI prints it; tests learn the port). */
  onListening?: (server: OpsServer) => void;
}

/** Health, readiness and metrics of a long-running process, when its port is configured. */
export async function serveOps(opts: ServeOpsOptions): Promise<OpsServer | null> {
  if (opts.port === undefined) return null;
  const ready = async () => opts.processNotReady?.() ?? (await databaseNotReady(opts.db, OPS_DB_TIMEOUT_MS));
  const server = await startOpsServer({
    host: opts.host,
    port: opts.port,
    metrics: opts.metrics,
    ready,
    // Readiness and its cause as gauges at every scrape, so a rule sees a database outage while `up` stays 1.
    beforeScrape: async () => {
      await opts.metrics.refreshFromDatabase(opts.db.knex, { timeoutMs: OPS_DB_TIMEOUT_MS, queueSchema: queueSchemaFor(opts.db.schema) });
      const databaseReachable = opts.metrics.lastRefreshError === null;
      opts.metrics.readiness({ ready: databaseReachable && (await ready()) === null, databaseReachable });
    },
  });
  opts.logger.info({ url: server.url }, 'health and metrics listening: /healthz /readyz /metrics');
  opts.onListening?.(server);
  return server;
}
