import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ExitStatusError, messageOf } from '../domain/errors.ts';
import { EXIT } from '../domain/exit-codes.ts';

/**
 * The file-system side of report versions. REPORT_DIR/<date>/ holds v1/, v2/, ... (never
 * rewritten once renamed into place), a CURRENT file naming the current one ("v2\n"), and
 * while a run writes, one .tmp-* directory that becomes vN by a single rename. A vN the database
 * never recorded (a run killed between the rename and its commit) is renamed vN.orphan-<time>.
 */
export const CURRENT_FILE = 'CURRENT';
const TEMP_PREFIX = '.tmp-';
const VERSION_NAME = /^v([1-9]\d*)$/;
const ORPHAN_NAME = /^v([1-9]\d*)\.orphan-/;

export class ReportDirError extends ExitStatusError {
  constructor(
    readonly dir: string,
    cause: unknown,
  ) {
    super(`cannot write reports in ${dir}: ${messageOf(cause)}`, EXIT.INCOMPLETE, { cause });
    this.name = 'ReportDirError';
  }
}

export const versionName = (version: number): string => `v${version}`;

/** Creates REPORT_DIR/<date>/ if missing and proves it writable, before any query runs. */
export async function ensureWritableDir(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true });
    await fs.access(dir, fs.constants.W_OK);
  } catch (err) {
    throw new ReportDirError(dir, err);
  }
}

/** Leftovers of killed runs. Only call while holding the date's lock: a live run's temp dir looks the same. */
export async function removeTempDirs(dateDir: string): Promise<string[]> {
  const names = (await fs.readdir(dateDir)).filter((n) => n.startsWith(TEMP_PREFIX));
  for (const n of names) await fs.rm(path.join(dateDir, n), { recursive: true, force: true });
  return names;
}

/**
 * mkdir, not mkdtemp: mkdtemp makes 0700, and the temp dir becomes the version, which other
 * accounts and shared folders must open like the files in it; mkdir honours the umask.
 */
export async function makeTempDir(dateDir: string): Promise<string> {
  try {
    const dir = path.join(dateDir, `${TEMP_PREFIX}${crypto.randomBytes(6).toString('hex')}`);
    await fs.mkdir(dir);
    return dir;
  } catch (err) {
    throw new ReportDirError(dateDir, err);
  }
}

/** Version numbers present on disk, whatever CURRENT says. */
export async function versionsOnDisk(dateDir: string): Promise<number[]> {
  const names = await fs.readdir(dateDir).catch(() => [] as string[]);
  return names.flatMap((n) => {
    const m = VERSION_NAME.exec(n);
    return m ? [Number(m[1])] : [];
  });
}

/** Numbers a new version must not take: every vN and every quarantined vN.orphan-*. */
export async function numbersTakenOnDisk(dateDir: string): Promise<number[]> {
  const names = await fs.readdir(dateDir).catch(() => [] as string[]);
  return names.flatMap((n) => {
    const m = VERSION_NAME.exec(n) ?? ORPHAN_NAME.exec(n);
    return m ? [Number(m[1])] : [];
  });
}

/** The version CURRENT names, or null (missing, unreadable, not a version name). */
export async function currentPointer(dateDir: string): Promise<number | null> {
  const pointer = await fs.readFile(path.join(dateDir, CURRENT_FILE), 'utf8').catch(() => '');
  const m = VERSION_NAME.exec(pointer.trim());
  return m ? Number(m[1]) : null;
}

/** Renames vN aside as vN.orphan-<now> (no longer a version to any reader); returns the new path. */
export async function quarantineVersion(dateDir: string, version: number, now: Date): Promise<string> {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const taken = new Set(await fs.readdir(dateDir));
  let name = `${versionName(version)}.orphan-${stamp}`;
  for (let i = 2; taken.has(name); i++) name = `${versionName(version)}.orphan-${stamp}-${i}`;
  const target = path.join(dateDir, name);
  try {
    await fs.rename(path.join(dateDir, versionName(version)), target);
    await fsyncDir(dateDir);
  } catch (err) {
    throw new ReportDirError(dateDir, err);
  }
  return target;
}

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a small file and flushes it to disk. */
export async function writeFileSynced(file: string, content: string | Buffer): Promise<void> {
  const handle = await fs.open(file, 'wx');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The temp dir becomes vN in one rename (a directory is renamed whole or not at all). */
export async function publishVersion(tempDir: string, dateDir: string, version: number): Promise<string> {
  await fsyncDir(tempDir);
  const target = path.join(dateDir, versionName(version));
  await fs.rename(tempDir, target);
  await fsyncDir(dateDir);
  return target;
}

/** Points CURRENT at a version, atomically (write beside, then rename over). */
export async function setCurrent(dateDir: string, version: number): Promise<void> {
  const tmp = path.join(dateDir, `${TEMP_PREFIX}${CURRENT_FILE}-${process.pid}`);
  await fs.rm(tmp, { force: true });
  await writeFileSynced(tmp, `${versionName(version)}\n`);
  await fs.rename(tmp, path.join(dateDir, CURRENT_FILE));
  await fsyncDir(dateDir);
}
