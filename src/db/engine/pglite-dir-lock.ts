import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../domain/errors.ts';

/**
 * One process at a time on an embedded (PGlite) database directory. PGlite is a single-process
 * engine: two processes opening the same directory each run their own Postgres over the same files,
 * which duplicates unique keys and breaks indexes. An exclusive lock file holding the pid guards it.
 *
 * - Created with O_EXCL, so of two processes starting together exactly one gets it.
 * - A lock whose pid no longer runs on this host (a SIGKILL, a lost container) is stale and taken
 *   over; the takeover itself is serialised by a short-lived second file, so two processes finding
 *   the same stale lock cannot both take it.
 * - Our own pid in the file but not held by this process means a restarted container reusing the
 *   pid: stale too.
 */
export const LOCK_FILE = 'payrecon.lock';
const TAKEOVER_STALE_MS = 10_000;
/** A lock file created but not yet written is briefly empty; only an old empty one is stale. */
const EMPTY_GRACE_MS = 5_000;

export class DatabaseBusyError extends UsageError {
  constructor(
    readonly dir: string,
    readonly holder: string,
    readonly lockPath: string,
  ) {
    super(
      `the embedded database ${dir} is in use by another payrecon process (${holder}); PGlite allows one process at a time. ` +
        `Wait for it to finish, or set DATABASE_URL to a Postgres server to run several processes at once ` +
        `(cron beside \`payrecon schedule\` or \`webhook serve\`). If that process no longer exists, delete ${lockPath}.`,
    );
    this.name = 'DatabaseBusyError';
  }
}

const heldHere = new Set<string>();

/** The code of a failed fs call or process.kill (EEXIST, ENOENT, EPERM). */
const errnoCode = (err: unknown): unknown => (err instanceof Error && 'code' in err ? err.code : undefined);

/** Takes the directory's lock or throws DatabaseBusyError; the returned function releases it. */
export function lockPgliteDir(dir: string): () => void {
  const abs = path.resolve(dir);
  const lockPath = path.join(abs, LOCK_FILE);
  if (heldHere.has(abs)) throw new DatabaseBusyError(abs, `this process, pid ${process.pid}`, lockPath);
  const mine = `${process.pid}\n${os.hostname()}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, mine, { flag: 'wx' });
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
      const seen = readLock(lockPath);
      if (seen === undefined) continue; // removed meanwhile: try again
      if (!isStale(seen)) throw new DatabaseBusyError(abs, describe(seen), lockPath);
      takeOver(lockPath, seen.raw, abs);
      continue;
    }
    heldHere.add(abs);
    const release = () => {
      if (!heldHere.delete(abs)) return;
      process.off('exit', release);
      if (readLock(lockPath)?.raw === mine) fs.rmSync(lockPath, { force: true });
    };
    // A normal exit without close() (an uncaught error) still frees it; a SIGKILL leaves a stale lock.
    process.on('exit', release);
    return release;
  }
  throw new DatabaseBusyError(abs, 'another process taking it at this moment', lockPath);
}

interface LockContent {
  raw: string;
  pid: number;
  host: string;
  ageMs: number;
}

function readLock(lockPath: string): LockContent | undefined {
  try {
    const raw = fs.readFileSync(lockPath, 'utf8');
    const [pid, host] = raw.split('\n');
    return { raw, pid: Number(pid), host: host ?? '', ageMs: Date.now() - fs.statSync(lockPath).mtimeMs };
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

function isStale(lock: LockContent): boolean {
  if (!Number.isInteger(lock.pid) || lock.pid <= 0) return lock.ageMs > EMPTY_GRACE_MS;
  // Another host's process cannot be probed from here: treat it as alive.
  if (lock.host !== os.hostname()) return false;
  if (lock.pid === process.pid) return true; // not held by this process (checked above): a reused pid
  try {
    process.kill(lock.pid, 0);
    return false;
  } catch (err) {
    return errnoCode(err) !== 'EPERM';
  }
}

function describe(lock: LockContent): string {
  if (!Number.isInteger(lock.pid) || lock.pid <= 0) return 'one starting right now';
  return lock.host === os.hostname() ? `pid ${lock.pid}` : `pid ${lock.pid} on host ${lock.host}`;
}

/** Removes a stale lock, unless someone else replaced it in the meantime. */
function takeOver(lockPath: string, staleRaw: string, dir: string): void {
  const guard = `${lockPath}.takeover`;
  try {
    fs.writeFileSync(guard, `${process.pid}\n`, { flag: 'wx' });
  } catch (err) {
    if (errnoCode(err) !== 'EEXIST') throw err;
    // A takeover guard left by a process killed mid-takeover is removed after a while.
    const age = Date.now() - (fs.statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > TAKEOVER_STALE_MS) fs.rmSync(guard, { force: true });
    else throw new DatabaseBusyError(dir, 'another process taking over a stale lock', lockPath);
    return;
  }
  try {
    if (readLock(lockPath)?.raw === staleRaw) fs.rmSync(lockPath, { force: true });
  } finally {
    fs.rmSync(guard, { force: true });
  }
}
