import type { Config } from '../config/config.ts';
import { messageOf } from '../domain/errors.ts';
import { openDatabase } from '../db/connect.ts';
import { liveWorkers, queueSchemaFor, queueSchemaVersion } from '../db/queue.ts';
import type { CheckResult } from './checks.ts';

/**
 * SCHEDULE_MODE=queue: graphile-worker's schema is installed and some `payrecon worker` beat within
 * the lock timeout; without a live worker the scheduler's jobs wait in the queue and nothing is checked.
 */
export async function checkQueue(config: Config): Promise<CheckResult> {
  const name = 'worker queue';
  if (config.SCHEDULE_MODE !== 'queue') return { name, status: 'skipped', detail: 'skipped (SCHEDULE_MODE=inprocess: no queue)' };
  const schema = queueSchemaFor(config.DATABASE_SCHEMA);
  let db;
  try {
    db = await openDatabase(config, { applicationName: 'payrecon-doctor', poolMax: 1 });
    const version = await queueSchemaVersion(db.knex, schema);
    if (version === null)
      return {
        name,
        status: 'failed',
        detail: `schema ${schema} is not installed`,
        fix: 'start `payrecon worker` (or `payrecon schedule` with SCHEDULE_MODE=queue): either installs it',
      };
    const since = new Date(Date.now() - config.WORKER_LOCK_TIMEOUT_SECONDS * 1000);
    const live = await liveWorkers(db.knex, since);
    if (live.length === 0)
      return {
        name,
        status: 'failed',
        detail: `schema ${schema} installed (migration ${version}), but no worker beat in the last ${config.WORKER_LOCK_TIMEOUT_SECONDS} s`,
        fix: 'start at least one `payrecon worker` on a machine that reaches this database and the provider (docs/operations/workers.md)',
      };
    const where = live.map((w) => `${w.host} pid ${w.pid}`).join(', ');
    return { name, status: 'ok', detail: `schema ${schema} (migration ${version}); ${live.length} live worker(s): ${where}` };
  } catch (err) {
    return { name, status: 'skipped', detail: `not checked: ${messageOf(err).split('\n')[0]}` };
  } finally {
    await db?.close();
  }
}
