import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../domain/errors.ts';
import { ReportDirError } from './version-dir.ts';

/**
 * The marker that ties a report folder to one database. Two databases writing one REPORT_DIR each
 * number their versions from their own records, so their v1, v2, ... would interleave and overwrite
 * the meaning of CURRENT; the second one is refused instead. Other checks (orphan versions,
 * retention) read the same file.
 */
export const OWNER_FILE = '.payrecon-database.json';

export interface ReportDirOwner {
  /** The database's installation id (table installation). */
  installationId: string;
  /** Which database, in words (describeDatabase), for the person reading a refusal. */
  database: string;
}

export interface OwnerFile extends ReportDirOwner {
  markedAt: string;
}

export class ReportDirOwnedError extends UsageError {
  constructor(dir: string, found: OwnerFile, mine: ReportDirOwner) {
    super(
      `REPORT_DIR ${dir} holds the reports of another database (${found.database}, installation ${found.installationId}, marked ${found.markedAt}); ` +
        `this one is ${mine.database} (installation ${mine.installationId}). Two databases in one folder would interleave their version numbers, so nothing was written. ` +
        `Fix: set REPORT_DIR to a folder of this database's own; or, if the other database is gone for good, move ${dir} away.`,
    );
    this.name = 'ReportDirOwnedError';
  }
}

/**
 * Writes the marker on first use (create-exclusive, so two first writers cannot both win) and refuses
 * a folder marked by another database. A folder from before markers existed is claimed by the first
 * database to write it.
 */
export async function claimReportDir(reportDir: string, mine: ReportDirOwner, now: Date): Promise<void> {
  const dir = path.resolve(reportDir);
  const file = path.join(dir, OWNER_FILE);
  const marker: OwnerFile = { ...mine, markedAt: now.toISOString() };
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch {
    // A file where the folder should be, or no permission: the caller's writability check of the
    // date folder, which comes next, names it; nothing to claim here.
    return;
  }
  try {
    await fs.writeFile(file, `${JSON.stringify(marker, null, 2)}\n`, { flag: 'wx' });
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new ReportDirError(dir, err);
  }
  const found = (await readReportDirOwner(dir))!;
  if (found.installationId !== mine.installationId) throw new ReportDirOwnedError(dir, found, mine);
}

/** The folder's marker, or null when it has none; a marker that cannot be read as one is a usage error. */
export async function readReportDirOwner(reportDir: string): Promise<OwnerFile | null> {
  const file = path.join(path.resolve(reportDir), OWNER_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<OwnerFile>;
    if (typeof parsed.installationId === 'string') return parsed as OwnerFile;
  } catch {
    // reported below
  }
  throw new UsageError(`${file}: not a payrecon report-folder marker (expected JSON with installationId); restore or remove it`);
}
