import type { Logger } from '../log/logger.ts';
import { quarantineVersion, versionsOnDisk } from './version-dir.ts';

/** A version directory the database had no record of, and where it was moved. */
export interface QuarantinedVersion {
  version: number;
  directory: string;
}

/**
 * vN is renamed into place before its row commits, so a run killed (or failing, e.g. a full disk
 * at CURRENT) between the two leaves a vN the database never recorded. Read as a version it would
 * be taken for current, compared as "unchanged" and never e-mailed; it cannot be adopted either,
 * as the per-order rows of its snapshot died with the transaction. So it is renamed aside, and its
 * number stays taken (numbersTakenOnDisk) so no other content ever appears under that name.
 * Only call holding the date's lock, with the recorded versions read after it was granted: a live
 * writer's vN is then either committed or gone.
 */
export async function quarantineOrphans(
  dateDir: string,
  recorded: readonly number[],
  now: Date,
  log?: Logger,
): Promise<QuarantinedVersion[]> {
  const known = new Set(recorded);
  const out: QuarantinedVersion[] = [];
  for (const version of (await versionsOnDisk(dateDir)).sort((a, b) => a - b)) {
    if (known.has(version)) continue;
    out.push({ version, directory: await quarantineVersion(dateDir, version, now) });
  }
  if (out.length)
    log?.warn(
      { dateDir, quarantined: out },
      'quarantined report version directories the database has no record of (a run interrupted before its commit); their numbers are not reused',
    );
  return out;
}
