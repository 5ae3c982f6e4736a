import fs from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from '../db/knex-types.ts';
import type { Db } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import { insertReportVersion, listReportVersions, lockReportDate, withReportDateLock, type ReportVersionRecord } from '../db/reports.ts';
import { countDayOrders, recordVersionOrders } from '../db/report-orders.ts';
import { insertPosting } from '../db/journal-postings.ts';
import { DateTime } from 'luxon';
import { installationId } from '../db/installation.ts';
import type { ReconPolicy } from '../recon/types.ts';
import { businessDay, dayIsPartial } from './date.ts';
import { passOverDay } from './day-pass.ts';
import { DayItemSheets } from './day-sheets.ts';
import type { JournalSettings } from './journal-files.ts';
import { businessHash, contentHash, manifestText, type ReportManifest } from './manifest.ts';
import { quarantineOrphans, type QuarantinedVersion } from './orphan-versions.ts';
import { claimReportDir } from './report-dir-owner.ts';
import { reportScope, type ReportAccount, type ReportScope } from './report-scope.ts';
import { writeVersionExtras } from './version-extras.ts';
import {
  currentPointer,
  ensureWritableDir,
  makeTempDir,
  numbersTakenOnDisk,
  publishVersion,
  removeTempDirs,
  setCurrent,
  versionName,
  versionsOnDisk,
  writeFileSynced,
} from './version-dir.ts';

export interface WriteReportsOptions {
  /** Business date, YYYY-MM-DD, validated before anything else happens. */
  date: string;
  /** IANA zone of the business day. */
  timezone: string;
  reportDir: string;
  /** Which database, in words (describeDatabase), for the REPORT_DIR marker and its refusal. */
  databaseDescription?: string;
  /** created_at of a new version (the only clock read, so tests are deterministic). */
  now: Date;
  /** Write a new version even when the content equals the current one. */
  force?: boolean;
  logger?: Logger;
  /** Currencies that always get summary rows (e.g. RECON_CURRENCIES), besides those seen that day. */
  currencies?: readonly string[];
  /** Roll-forward tolerance per currency, in its units (RECON_TOLERANCE); default exact. */
  tolerances?: Readonly<Record<string, string>>;
  /** How long a recorded movement may take to reach the balance (MOVEMENT_LAG_MIN); default 10 minutes. */
  movementLagMs?: number;
  /** Earlier business days whose open items and late changes are carried (RECON_LOOKBACK_DAYS); default 30. */
  lookbackDays?: number;
  /** Rows fetched per cursor page. */
  pageSize?: number;
  /** Called as the write reaches each step (crash tests stop the process there); a throw fails the write there. */
  onStep?: (step: WriteStep) => void | Promise<void>;
  /** The chart of accounts and currencies of the journal files (JOURNAL_*); default the built-in accounts, USDT. */
  journal?: JournalSettings;
  /** FEE_SCHEDULE_FILE: the contract the journal's fee differences are measured against. */
  feeSchedule?: ReconPolicy['feeSchedule'];
  /**
   * With several accounts configured: the account whose rows alone the version reads, written under
   * REPORT_DIR/<account>/<date>/ and numbered apart from the other accounts' versions. Undefined with one
   * account: every row, REPORT_DIR/<date>/, exactly as before accounts.
   */
  account?: ReportAccount;
}

/**
 * The steps of writing a version, in order: the files are in the temp dir; the version's rows are
 * inserted (not committed); the temp dir is renamed vN; CURRENT names vN; the transaction committed.
 */
/** The steps of a version write, in order; each is a kill point of the crash tests (every one is tested). */
export const WRITE_STEPS = ['written', 'recorded', 'published', 'pointed', 'committed'] as const;
export type WriteStep = (typeof WRITE_STEPS)[number];

export interface WriteReportsResult {
  version: number;
  /** Absolute path of the version directory (REPORT_DIR/<date>/vN, or REPORT_DIR/<account>/<date>/vN with several accounts). */
  directory: string;
  manifest: ReportManifest;
  /** True when the data gave the current version's bytes again and no version was written. */
  unchanged: boolean;
  /** The report_versions row (the e-mail step's handle): only a recorded version is ever current. */
  record: ReportVersionRecord;
  /** Version directories found on disk that the database never recorded, renamed aside by this run. */
  quarantined: QuarantinedVersion[];
}

/**
 * Writes the reports of business day D as a new version, or reports that the current one already
 * holds the same business content. D's report is about the orders created on D (in the zone), each
 * with its latest check whenever it ran, plus the open items and late changes of the lookback days
 * before D. Every query runs in one REPEATABLE READ transaction so the files describe one snapshot
 * of the data, taken after the date's advisory lock was granted so two writers never race.
 * A date in the future is refused; today is written as partial ("day not over").
 */
export async function writeReports(db: Db, opts: WriteReportsOptions): Promise<WriteReportsResult> {
  const { scope, dateDir } = await prepare(db.knex, opts);
  // The lock first, on a connection of its own, and only then the snapshot (see withReportDateLock).
  const result = await withReportDateLock(
    db,
    scope.date,
    () => db.knex.transaction((tx) => writeInTransaction(tx, opts, scope, dateDir), { isolationLevel: 'repeatable read' }),
    scope.account,
  );
  if (!result.unchanged) await opts.onStep?.('committed');
  return result;
}

/**
 * writeReports inside the caller's transaction, whose snapshot it reads: the date's lock is taken in
 * it (lockReportDate) and held until the caller commits, which is also the caller's step to report.
 */
export async function writeReportsInTransaction(tx: Knex.Transaction, opts: WriteReportsOptions): Promise<WriteReportsResult> {
  const { scope, dateDir } = await prepare(tx, opts);
  await lockReportDate(tx, scope.date, scope.account);
  return writeInTransaction(tx, opts, scope, dateDir);
}

/** Validates the date and claims its folder, before any lock or snapshot. */
async function prepare(db: Knex, opts: WriteReportsOptions): Promise<{ scope: ReportScope; dateDir: string }> {
  const day = businessDay(opts.date, opts.timezone);
  const partial = dayIsPartial(day, opts.now);
  const dateDir = opts.account ? path.resolve(opts.reportDir, opts.account.id, day.date) : path.resolve(opts.reportDir, day.date);
  // Before anything is made in it: a folder of another database is refused whole.
  const owner = { installationId: await installationId(db), database: opts.databaseDescription ?? 'a payrecon database' };
  await claimReportDir(opts.reportDir, owner, opts.now);
  await ensureWritableDir(dateDir);
  return { scope: reportScope(day, opts.lookbackDays ?? 30, partial, opts.account), dateDir };
}

/** The version's work, under the date's lock (held by the caller); its number also counts vN directories on disk, whatever the snapshot. */
async function writeInTransaction(
  tx: Knex.Transaction,
  opts: WriteReportsOptions,
  scope: ReportScope,
  dateDir: string,
): Promise<WriteReportsResult> {
  const log = opts.logger;
  const { date } = scope;
  const leftovers = await removeTempDirs(dateDir);
  if (leftovers.length) log?.warn({ dateDir, leftovers }, 'removed temp directories of an interrupted report run');
  const records = await listReportVersions(tx, date, scope.account);
  const quarantined = await quarantineOrphans(
    dateDir,
    records.map((r) => r.version),
    opts.now,
    log,
  );
  // Current is the newest recorded version, as the console and status show it, when it is here.
  const latest = records.at(-1) ?? null;
  const currentRecord = latest && (await versionsOnDisk(dateDir)).includes(latest.version) ? latest : null;

  const tempDir = await makeTempDir(dateDir);
  let daySheets: DayItemSheets | null = null;
  try {
    daySheets = new DayItemSheets(tempDir, { date, timezone: opts.timezone, items: await countDayOrders(tx, scope.window, scope.account) });
    // The pass over the day: every CSV file written, and what the other files are made from.
    // Never reuse a number: not one on disk (even unrecorded or quarantined), not one recorded (even if deleted from disk).
    const version = Math.max(latest?.version ?? 0, ...(await numbersTakenOnDisk(dateDir)), 0) + 1;
    const facts = await passOverDay(tx, opts, scope, tempDir, daySheets, { version });
    const { files, headline } = facts;
    const hash = contentHash(files);
    const business = businessHash(files, scope.partial);
    const current = currentRecord?.version ?? null;
    const currentManifest = current === null ? null : await readManifest(path.join(dateDir, versionName(current)));
    // A manifest from before business hashes existed compares by bytes.
    const same =
      currentManifest !== null &&
      currentManifest.content_hash === currentRecord!.content_hash &&
      (currentManifest.business_hash ? currentManifest.business_hash === business : currentManifest.content_hash === hash);

    if (!opts.force && same) {
      await daySheets.abort();
      await fs.rm(tempDir, { recursive: true, force: true });
      // A run killed after pointing CURRENT at its unrecorded version left it naming that one.
      if ((await currentPointer(dateDir)) !== current) await setCurrent(dateDir, current!);
      log?.info({ date, version: current }, 'report unchanged; no new version');
      return {
        version: current!,
        directory: path.join(dateDir, versionName(current!)),
        manifest: currentManifest,
        unchanged: true,
        record: currentRecord!,
        quarantined,
      };
    }

    // The workbook, charts and report.html name the version, so they are written once it is known.
    const extras = await writeVersionExtras(
      tx,
      scope,
      { dir: tempDir, version, timezone: opts.timezone, now: opts.now, pageSize: opts.pageSize, accountName: scope.accountName },
      facts,
      daySheets,
    );
    const manifest: ReportManifest = {
      format: 'payrecon-report/2',
      // Only with several accounts: a single account's manifest stays byte for byte what it was.
      ...(opts.account ? { account: { id: opts.account.id, name: opts.account.displayName } } : {}),
      business_date: date,
      timezone: opts.timezone,
      window: scope.localWindow,
      partial: scope.partial,
      headline,
      lookback_days: scope.lookbackDays,
      version,
      supersedes: current,
      created_at: opts.now.toISOString(),
      content_hash: hash,
      business_hash: business,
      run_ids: facts.runIds,
      files: { ...files, ...extras },
    };
    await writeFileSynced(path.join(tempDir, 'manifest.json'), manifestText(manifest));
    await opts.onStep?.('written');
    const directory = path.join(dateDir, versionName(version));
    // Recorded first: if the rename fails the transaction rolls back; if the process dies or the
    // commit fails after the rename, the next run quarantines vN (quarantineOrphans) and takes N+1.
    const record = await insertReportVersion(tx, {
      businessDate: date,
      version,
      directory,
      manifest,
      contentHash: hash,
      businessHash: business,
      partial: scope.partial,
      createdAt: opts.now,
      accountId: scope.account,
    });
    // What this version says per order, for later reports' late_changes.csv: same snapshot as items.csv.
    await recordVersionOrders(tx, record.id, scope.window, scope.account);
    // The version's posting file joins the ledger with it, in the same transaction.
    await insertPosting(tx, {
      businessDate: date,
      version,
      postedOn: DateTime.fromJSDate(opts.now, { zone: opts.timezone }).toISODate()!,
      createdAt: opts.now,
      entries: facts.posting.entries,
      accountId: scope.account,
    });
    await opts.onStep?.('recorded');
    await publishVersion(tempDir, dateDir, version);
    await opts.onStep?.('published');
    await setCurrent(dateDir, version);
    await opts.onStep?.('pointed');
    log?.info(
      { date, version, directory, rows: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v!.rows])) },
      'report written',
    );
    return { version, directory, manifest, unchanged: false, record, quarantined };
  } catch (err) {
    await daySheets?.abort().catch(() => undefined);
    await fs.rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
}

async function readManifest(versionDir: string): Promise<ReportManifest | null> {
  try {
    return JSON.parse(await fs.readFile(path.join(versionDir, 'manifest.json'), 'utf8')) as ReportManifest;
  } catch {
    return null;
  }
}
