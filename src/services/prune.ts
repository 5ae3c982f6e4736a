// The prune job: what RETENTION_DAYS no longer keeps, removed (or counted, with --dry-run) and recorded as a run.
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import { createRun, finishRun } from '../db/runs.ts';
import { PRUNE_JOB, runPrune, type PruneResult } from '../prune/run-prune.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { messageOf } from '../domain/errors.ts';

export interface PruneJobOptions {
  dryRun?: boolean;
  /** The clock the cutoff is counted back from; tests pin it. */
  now?: () => Date;
  signal?: AbortSignal;
}

/** 'off': RETENTION_DAYS=0, nothing looked at. */
export type PruneJobResult = (PruneResult & { retentionDays: number; runId: string | null }) | { status: 'off'; retentionDays: 0 };

const DAY_MS = 86_400_000;

export async function pruneJob(
  options: PruneJobOptions = {},
  context: JobContextOptions = {},
): Promise<{ exitCode: number; result: PruneJobResult }> {
  return withJob('prune', { ...context, signal: options.signal }, async ({ config, logger, db, signal }) => {
    const retentionDays = config.RETENTION_DAYS;
    if (retentionDays === 0) return { exitCode: EXIT.OK, result: { status: 'off', retentionDays: 0 } };
    const now = options.now ?? (() => new Date());
    const dryRun = options.dryRun ?? false;
    const cutoff = new Date(now().getTime() - retentionDays * DAY_MS);
    let runId: string | null = null;
    try {
      const result = await runPrune({
        db,
        logger,
        cutoff,
        dryRun,
        batchSize: config.PRUNE_BATCH_SIZE,
        reportDir: config.REPORT_DIR,
        archiveDir: config.PRUNE_ARCHIVE_DIR,
        lockTimeoutMs: 5_000,
        signal,
        now,
        onAcquired: async () => {
          runId = (await createRun(db.knex, PRUNE_JOB, { cutoff: cutoff.toISOString(), retentionDays }, { dryRun, now: now() })).id;
        },
      });
      if (runId) await finishRun(db.knex, runId, result.status === 'completed' ? 'completed' : 'interrupted', result.tables, null, now());
      return { exitCode: EXIT.OK, result: { ...result, retentionDays, runId } };
    } catch (err) {
      if (runId) await finishRun(db.knex, runId, 'failed', undefined, messageOf(err), now()).catch(() => undefined);
      throw err;
    }
  });
}
