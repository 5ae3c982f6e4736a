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
import { archiveVersion, removeStaleArchiveTemps } from './version-archive.ts';
import { installationId } from '../db/installation.ts';
import { OWNER_FILE, readReportDirOwner } from '../report/report-dir-owner.ts';

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
  /** This installation's REPORT_DIR: every folder removed is resolved under it, never taken from a row. */
  reportDir: string;
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
): Promise<{ versions: PrunedVersion[]; orders: number; stopped: boolean; refused: string | null }> {
  if (opts.archiveDir && !opts.dryRun) {
    const stale = await removeStaleArchiveTemps(opts.archiveDir);
    if (stale.length) opts.logger.info({ files: stale }, 'removed half-written archive zips of an earlier, interrupted prune');
  }
  const candidates = await prunableReportVersions(opts.db.knex, opts.cutoff);
  const unfinished = opts.dryRun ? [] : await removedVersionsWithOrders(opts.db.knex);
  if (candidates.length === 0 && unfinished.length === 0) return { versions: [], orders: 0, stopped: false, refused: null };
  // Before anything is deleted: REPORT_DIR must be this database's own folder.
  const refused = await foreignReportDir(opts);
  if (refused) {
    opts.logger.warn({ reportDir: opts.reportDir }, refused);
    return { versions: [], orders: 0, stopped: false, refused };
  }
  const versions: PrunedVersion[] = [];
  let orders = 0;
  for (const v of await withoutCurrent(opts.reportDir, candidates)) {
    if (opts.stopped()) return { versions, orders, stopped: true, refused: null };
    const dir = versionDir(opts.reportDir, v)!;
    if (opts.dryRun) {
      versions.push({ ...pick(v, dir), archivedTo: null });
      orders += v.orders;
      continue;
    }
    const archivedTo = opts.archiveDir ? await archiveVersion(opts.db.knex, opts.archiveDir, v, dir, opts.batchSize) : null;
    if (!(await markVersionRemoved(opts.db.knex, v.id, opts.cutoff, opts.now(), archivedTo))) {
      // Needed again meanwhile (an e-mail begun, a case opened): kept, and its zip is not an archive of anything.
      if (archivedTo) await fs.rm(archivedTo, { force: true });
      continue;
    }
    await fs.rm(dir, { recursive: true, force: true });
    const removed = await deleteOrders(opts, v.id);
    versions.push({ ...pick(v, dir), orders: removed, archivedTo });
    orders += removed;
    opts.logger.info({ businessDate: v.businessDate, version: v.version, archivedTo }, 'report version removed by retention');
  }
  if (!opts.dryRun)
    for (const v of unfinished) {
      if (opts.stopped()) return { versions, orders, stopped: true, refused: null };
      const dir = versionDir(opts.reportDir, v);
      if (dir) await fs.rm(dir, { recursive: true, force: true });
      orders += await deleteOrders(opts, v.id);
    }
  return { versions, orders, stopped: false, refused: null };
}

/**
 * Why REPORT_DIR's folders must not be touched, or null: its marker (report-dir-owner.ts) must name
 * this database's installation. A folder of another installation (a restored copy of the database
 * pruning with a shared REPORT_DIR) or with no marker (no report was ever written there) is left alone.
 */
async function foreignReportDir(opts: VersionPruneOptions): Promise<string | null> {
  const owner = await readReportDirOwner(opts.reportDir);
  const mine = await installationId(opts.db.knex);
  const dir = path.resolve(opts.reportDir);
  if (!owner)
    return `report versions not pruned: ${dir} has no ${OWNER_FILE} (no report of this database was written there); check REPORT_DIR`;
  if (owner.installationId !== mine)
    return `report versions not pruned: ${dir} holds the reports of another installation (${owner.installationId}, ${owner.database}); this database is ${mine}. Set REPORT_DIR to this database's own folder`;
  return null;
}

const pick = (v: PrunableVersion, dir: string) => ({ businessDate: v.businessDate, version: v.version, directory: dir, orders: v.orders });

/**
 * The version's folder under REPORT_DIR, from its relative path (`<date>/vN`), or null for anything
 * else: a path that leaves REPORT_DIR, or that is not the version's own, is never deleted.
 */
function versionDir(reportDir: string, v: Pick<PrunableVersion, 'relativeDir' | 'version' | 'businessDate'>): string | null {
  // `<date>/vN`, or `<account>/<date>/vN` (one of several accounts' versions), the account an id (ACCOUNT_ID: no dots, no slashes).
  const own = `${v.businessDate}/${versionName(v.version)}`;
  if (v.relativeDir !== own && !new RegExp(`^[a-z0-9][a-z0-9-]{0,39}/${own}$`).test(v.relativeDir)) return null;
  const root = path.resolve(reportDir);
  const dir = path.resolve(root, v.relativeDir);
  const rel = path.relative(root, dir);
  return rel.startsWith('..') || path.isAbsolute(rel) ? null : dir;
}

/** Drops the versions CURRENT names in their day's folder (a pointer the database does not hold), and any without a folder of their own. */
async function withoutCurrent(reportDir: string, vs: PrunableVersion[]): Promise<PrunableVersion[]> {
  const out: PrunableVersion[] = [];
  for (const v of vs) {
    const dir = versionDir(reportDir, v);
    if (dir && (await currentPointer(path.dirname(dir))) !== v.version) out.push(v);
  }
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
