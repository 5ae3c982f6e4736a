import { Logger as GraphileLogger, runMigrations, type LogFunctionFactory } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { queueSchemaFor } from '../db/queue.ts';

/** graphile-worker's log lines through payrecon's logger (its "warning" is pino's warn). */
export function queueLogger(logger: Logger): GraphileLogger {
  const factory: LogFunctionFactory = (scope) => (level, message, meta) => {
    const fields = { queue: scope, ...(meta ?? {}) };
    if (level === 'error') logger.error(fields, message);
    else if (level === 'warning') logger.warn(fields, message);
    else if (level === 'info') logger.info(fields, message);
    else logger.debug(fields, message);
  };
  return new GraphileLogger(factory);
}

/**
 * Installs or upgrades graphile-worker's schema (<DATABASE_SCHEMA>_worker) with its own migrator, under
 * payrecon's migration lock, so workers and schedulers starting together do not race to create it.
 */
export async function installQueue(db: Db, connectionString: string, logger: Logger): Promise<string> {
  const schema = queueSchemaFor(db.schema);
  await db.engine.waitLock(`migrate:${schema}`, () => runMigrations({ connectionString, schema, logger: queueLogger(logger) }));
  return schema;
}
