import fs from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Knex } from '../db/knex-types.ts';
import { ZipFile } from '../tabular/workbook/zip.ts';
import { fsyncDir } from '../report/version-dir.ts';
import { versionOrdersPage, versionRowJson, type PrunableVersion } from '../db/report-retention.ts';

/**
 * A report version archived before its directory is removed: one zip per version,
 * `<dir>/report_versions/<YYYY-MM>/<YYYY-MM-DD>-v<N>.zip` (the business day's month), holding under
 * `<YYYY-MM-DD>/v<N>/` every file of the version as it was on disk, `report_version.json` (its
 * report_versions row) and `report_version_orders.jsonl` (what it recorded per order, one row a line).
 * JSON as Postgres's row_to_json writes it: numbers exact, read with a lossless parser.
 * Written beside and renamed into place after an fsync, so a zip under its final name is whole.
 * One of several accounts' versions (relative dir `<account>/<date>/vN`) goes one folder further,
 * `<YYYY-MM>/<account>/`, its files under `<account>/<YYYY-MM-DD>/v<N>/`: two accounts' v1 of a day are two zips.
 */
export function versionArchiveFile(dir: string, v: Pick<PrunableVersion, 'businessDate' | 'version'> & { relativeDir?: string }): string {
  const account = accountOf(v);
  return path.join(
    dir,
    'report_versions',
    v.businessDate.slice(0, 7),
    ...(account ? [account] : []),
    `${v.businessDate}-v${v.version}.zip`,
  );
}

/** The account folder a version's relative dir starts with, or null for `<date>/vN`. */
const accountOf = (v: { relativeDir?: string }): string | null => {
  const parts = v.relativeDir?.split('/') ?? [];
  return parts.length === 3 ? parts[0] : null;
};

/** `versionDir`: the version's folder under this installation's REPORT_DIR (prune-versions.ts resolves it). */
export async function archiveVersion(db: Knex, dir: string, v: PrunableVersion, versionDir: string, pageSize: number): Promise<string> {
  const file = versionArchiveFile(dir, v);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.rm(tmp, { force: true });
  const zip = new ZipFile(tmp);
  try {
    const account = accountOf(v);
    const inZip = `${account ? `${account}/` : ''}${v.businessDate}/v${v.version}`;
    for (const name of await filesUnder(versionDir)) zip.add(`${inZip}/${name}`, createReadStream(path.join(versionDir, name)));
    zip.add(`${inZip}/report_version.json`, Buffer.from(`${await versionRowJson(db, v.id)}\n`));
    const orders = zip.text(`${inZip}/report_version_orders.jsonl`);
    for (let after = null as Parameters<typeof versionOrdersPage>[2]; ;) {
      const page = await versionOrdersPage(db, v.id, after, pageSize);
      for (const line of page.lines) await orders.write(`${line}\n`);
      if (page.last === null || page.lines.length < pageSize) break;
      after = page.last;
    }
    orders.end();
    await zip.close();
  } catch (err) {
    await zip.abort();
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fs.rename(tmp, file);
  await fsyncDir(path.dirname(file));
  return file;
}

/** A zip being written: `<name>.zip.tmp-<pid>`, renamed into place when whole. */
const TEMP_ZIP = /\.zip\.tmp-\d+$/;

/**
 * Removes the half-written zips of earlier prunes (one killed mid-archive leaves its temporary file).
 * Called under the prune lock, so no other prune is writing one now. Returns the files removed.
 */
export async function removeStaleArchiveTemps(dir: string): Promise<string[]> {
  const root = path.join(dir, 'report_versions');
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  const stale = entries.filter((e) => e.isFile() && TEMP_ZIP.test(e.name)).map((e) => path.join(e.parentPath, e.name));
  for (const file of stale) await fs.rm(file, { force: true });
  return stale.sort();
}

/** Relative paths of the files under dir (none when it is gone), sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}
