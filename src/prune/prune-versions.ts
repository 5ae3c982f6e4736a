import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import {
  deleteRemovedVersionOrders,
  markVersionRemoved,
  prunableReportVersions,
  removedVersionsWithOrders,
  type PrunableVersion,
} from '../db/report-retention.ts';
import { currentPointer, versionName } from '../report/version-dir.ts';
import { archiveVersion } from './version-archive.ts';

/** One superseded report version the retention removed (or, in a dry run, would). */
export interface PrunedVersion {
  businessDate: string;
  version: number;
  directory: string;
  /** Rows of report_version_orders removed with it. */
  orders: number;
  /** The zip it was written to first; null without an archive (or in a dry run). */
  archivedTo: string | null;
}

export interface VersionPruneOptions {
  db: Db;
  logger: Logger;
  cutoff: Date;
  dryRun: boolean;
  batchSize: number;
  archiveDir?: string;
  now: () => Date;
  stopped: () => boolean;
}

/**
 * Removes the directories of superseded report versions past the retention (see db/report-retention.ts
 * for what is kept), each after its archive zip is on disk when archiving, then its recorded orders in
 * batches. Order of the steps: archive, mark the row removed (the rule checked again), delete the
 * directory, delete the recorded orders; a prune stopped between them is finished by the next one.
 */
export async function pruneReportVersions(
  opts: VersionPruneOptions,
): Promise<{ versions: PrunedVersion[]; orders: number; stopped: boolean }> {
  const candidates = await prunableReportVersions(opts.db.knex, opts.cutoff);
  const versions: PrunedVersion[] = [];
  let orders = 0;
  for (const v of await withoutCurrent(candidates)) {
    if (opts.stopped()) return { versions, orders, stopped: true };
    if (opts.dryRun) {
      versions.push({ ...pick(v), archivedTo: null });
      orders += v.orders;
      continue;
    }
    const archivedTo = opts.archiveDir ? await archiveVersion(opts.db.knex, opts.archiveDir, v, opts.batchSize) : null;
    if (!(await markVersionRemoved(opts.db.knex, v.id, opts.cutoff, opts.now(), archivedTo))) {
      // Needed again meanwhile (an e-mail begun, a case opened): kept, and its zip is not an archive of anything.
      if (archivedTo) await fs.rm(archivedTo, { force: true });
      continue;
    }
    await removeDirectory(v);
    const removed = await deleteOrders(opts, v.id);
    versions.push({ ...pick(v), orders: removed, archivedTo });
    orders += removed;
    opts.logger.info({ businessDate: v.businessDate, version: v.version, archivedTo }, 'report version removed by retention');
  }
  if (!opts.dryRun)
    for (const v of await removedVersionsWithOrders(opts.db.knex)) {
      if (opts.stopped()) return { versions, orders, stopped: true };
      await removeDirectory(v);
      orders += await deleteOrders(opts, v.id);
    }
  return { versions, orders, stopped: false };
}

const pick = (v: PrunableVersion) => ({ businessDate: v.businessDate, version: v.version, directory: v.directory, orders: v.orders });

/** A recorded directory REPORT_DIR/<date>/vN; anything else is never deleted. */
function isVersionDir(v: Pick<PrunableVersion, 'directory' | 'version' | 'businessDate'>): boolean {
  return path.basename(v.directory) === versionName(v.version) && path.basename(path.dirname(v.directory)) === v.businessDate;
}

/** Drops the versions CURRENT names in their day's folder (a pointer the database does not hold). */
async function withoutCurrent(vs: PrunableVersion[]): Promise<PrunableVersion[]> {
  const out: PrunableVersion[] = [];
  for (const v of vs) if ((await currentPointer(path.dirname(v.directory))) !== v.version) out.push(v);
  return out;
}

async function deleteOrders(opts: VersionPruneOptions, versionId: string): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteRemovedVersionOrders(opts.db.knex, versionId, opts.batchSize);
    total += n;
    if (n < opts.batchSize) return total;
  }
}

async function removeDirectory(v: Pick<PrunableVersion, 'directory' | 'version' | 'businessDate'>): Promise<void> {
  if (isVersionDir(v)) await fs.rm(v.directory, { recursive: true, force: true });
}
