import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { withJobLock } from '../db/locks.ts';
import { countPrunable, deletePrunableBatch, PRUNE_TABLES, setTransactionLockTimeout, type PruneTable } from '../db/prune.ts';
import { appendToArchive } from './archive.ts';
import { pruneReportVersions, type PrunedVersion } from './prune-versions.ts';

export const PRUNE_JOB = 'prune';

export interface PruneOptions {
  db: Db;
  logger: Logger;
  /** Rows older than this are pruned. */
  cutoff: Date;
  dryRun: boolean;
  /** Rows per statement, each statement its own transaction. */
  batchSize: number;
  /** This installation's REPORT_DIR: superseded versions' folders are removed under it only. */
  reportDir: string;
  /** When set, deleted rows are written here first (see archive.ts). */
  archiveDir?: string;
  /** Each batch waits at most this long for a lock, then fails rather than hold up a reconcile. */
  lockTimeoutMs: number;
  signal?: AbortSignal;
  /** Called once the lock is held, before any work (the job's run row). */
  onAcquired?: () => Promise<void>;
  /** The clock of removed_at on report versions; default the system's. */
  now?: () => Date;
}

/** Report versions removed from disk (rows marked removed, not deleted) and the recorded orders deleted with them. */
const VERSION_COUNTS = ['report_versions', 'report_version_orders'] as const;
type PruneCount = PruneTable | (typeof VERSION_COUNTS)[number];

export interface PruneResult {
  status: 'completed' | 'skipped' | 'stopped';
  dryRun: boolean;
  cutoff: string;
  /** Rows removed per table (with --dry-run: rows that would be); report_versions: versions removed from disk. */
  tables: Record<PruneCount, number>;
  /** The superseded report versions removed from disk (with --dry-run: that would be). */
  reportVersions: PrunedVersion[];
  /** Why no report version was touched (REPORT_DIR not this database's own), or null. */
  reportVersionsRefused: string | null;
  archiveFiles: string[];
}

/**
 * Removes what the retention no longer keeps, table by table in small batches, each batch one short
 * transaction: a reconcile running meanwhile waits for no lock of prune's, and prune skips rows it
 * holds. Under its own advisory lock, so two prunes never overlap.
 */
export async function runPrune(opts: PruneOptions): Promise<PruneResult> {
  const tables = Object.fromEntries([...VERSION_COUNTS, ...PRUNE_TABLES].map((t) => [t, 0])) as Record<PruneCount, number>;
  const reportVersions: PrunedVersion[] = [];
  const base = {
    dryRun: opts.dryRun,
    cutoff: opts.cutoff.toISOString(),
    tables,
    reportVersions,
    reportVersionsRefused: null as string | null,
  };
  const files = new Set<string>();
  const lock = await withJobLock(opts.db, PRUNE_JOB, async (held) => {
    await opts.onAcquired?.();
    // First: the checks a removed version's recorded orders kept become prunable in this same run.
    const versions = await pruneReportVersions({
      db: opts.db,
      logger: opts.logger,
      reportDir: opts.reportDir,
      cutoff: opts.cutoff,
      dryRun: opts.dryRun,
      batchSize: opts.batchSize,
      archiveDir: opts.archiveDir,
      now: opts.now ?? (() => new Date()),
      stopped: () => Boolean(opts.signal?.aborted || held.lost.aborted),
    });
    reportVersions.push(...versions.versions);
    base.reportVersionsRefused = versions.refused;
    tables.report_versions = versions.versions.length;
    tables.report_version_orders = versions.orders;
    for (const v of versions.versions) if (v.archivedTo) files.add(v.archivedTo);
    if (versions.stopped) return 'stopped' as const;
    for (const table of PRUNE_TABLES) {
      if (opts.dryRun) {
        tables[table] = await countPrunable(opts.db.knex, table, opts.cutoff);
        continue;
      }
      let afterId = '0';
      for (;;) {
        if (opts.signal?.aborted || held.lost.aborted) return 'stopped' as const;
        const batch = await opts.db.knex.transaction(async (trx) => {
          await setTransactionLockTimeout(trx, opts.lockTimeoutMs);
          const b = await deletePrunableBatch(trx, table, opts.cutoff, {
            afterId,
            limit: opts.batchSize,
            returnRows: opts.archiveDir !== undefined,
          });
          // On disk before the delete commits: a failed write rolls the batch back.
          if (opts.archiveDir && b.rows.length > 0) for (const f of await appendToArchive(opts.archiveDir, table, b.rows)) files.add(f);
          return b;
        });
        tables[table] += batch.deleted;
        if (batch.lastId === null) break;
        afterId = batch.lastId;
      }
      opts.logger.info({ table, deleted: tables[table] }, 'pruned');
    }
    return 'completed' as const;
  });
  return { status: lock.acquired ? lock.result! : 'skipped', ...base, archiveFiles: [...files].sort() };
}
