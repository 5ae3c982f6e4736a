import fs from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from '../log/logger.ts';
import {
  balanceSnapshotsFor,
  finalizedMovement,
  insertReportVersion,
  latestReportVersion,
  listReportVersions,
  lockReportDate,
  rateSnapshotsFor,
  streamReportItems,
  type BalanceSnapshotRow,
  type FinalizedMovement,
  type ReportVersionRecord,
  type Window,
} from '../db/reports.ts';
import { CsvFile, type CsvFileResult } from './csv-file.ts';
import { businessDay } from './date.ts';
import { timeFormatter } from './format.ts';
import { ITEM_COLUMNS, itemRow } from './items.ts';
import { contentHash, manifestText, sortRunIds, type ReportFile, type ReportManifest } from './manifest.ts';
import { OrderTotalsAccumulator } from './order-totals.ts';
import { BALANCE_COLUMNS, RATE_COLUMNS, balanceRow, rateRow } from './snapshots.ts';
import { SUMMARY_COLUMNS, lastRateByCurrency, orderRows, rollForwardRow } from './summary.ts';
import {
  currentVersion,
  ensureWritableDir,
  makeTempDir,
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
  /** created_at of a new version (the only clock read, so tests are deterministic). */
  now: Date;
  /** Write a new version even when the content equals the current one. */
  force?: boolean;
  logger?: Logger;
  /** Currencies that always get summary rows (e.g. RECON_CURRENCIES), besides those seen that day. */
  currencies?: readonly string[];
  /** Roll-forward tolerance per currency, in its units (RECON_TOLERANCE); default exact. */
  tolerances?: Readonly<Record<string, string>>;
  /** Rows fetched per cursor page. */
  pageSize?: number;
}

export interface WriteReportsResult {
  version: number;
  /** Absolute path of the version directory (REPORT_DIR/<date>/vN). */
  directory: string;
  manifest: ReportManifest;
  /** True when the data gave the current version's bytes again and no version was written. */
  unchanged: boolean;
  /** The report_versions row (the e-mail step's handle); null only for a version on disk the database never recorded. */
  record: ReportVersionRecord | null;
}

/**
 * Writes the day's reports as a new version, or reports that the current one already holds
 * these bytes. Every query runs in one REPEATABLE READ transaction so the five files describe
 * one snapshot of the data, under an advisory lock on the date so two writers never race.
 */
export async function writeReports(db: Knex, opts: WriteReportsOptions): Promise<WriteReportsResult> {
  const day = businessDay(opts.date, opts.timezone);
  const dateDir = path.resolve(opts.reportDir, day.date);
  await ensureWritableDir(dateDir);
  const window: Window = { from: day.start.toUTC().toISO()!, to: day.end.toUTC().toISO()! };
  const run = (tx: Knex.Transaction) =>
    writeInTransaction(tx, opts, day.date, dateDir, window, {
      from: day.start.toISO()!,
      to: day.end.toISO()!,
    });
  if (db.isTransaction) return run(db as Knex.Transaction);
  return db.transaction(run, { isolationLevel: 'repeatable read' });
}

async function writeInTransaction(
  tx: Knex.Transaction,
  opts: WriteReportsOptions,
  date: string,
  dateDir: string,
  window: Window,
  localWindow: { from: string; to: string },
): Promise<WriteReportsResult> {
  const log = opts.logger;
  // The lock statement also fixes the transaction's snapshot, so a writer that committed while we
  // waited is invisible to the queries; the version number also counts vN directories on disk,
  // which that writer renamed into place before committing.
  await lockReportDate(tx, date);
  const leftovers = await removeTempDirs(dateDir);
  if (leftovers.length) log?.warn({ dateDir, leftovers }, 'removed temp directories of an interrupted report run');

  const tempDir = await makeTempDir(dateDir);
  try {
    const { files, runIds } = await writeFiles(tx, opts, tempDir, window);
    const hash = contentHash(files);
    const current = await currentVersion(dateDir);
    const currentManifest = current === null ? null : await readManifest(path.join(dateDir, versionName(current)));

    if (!opts.force && currentManifest && currentManifest.content_hash === hash) {
      await fs.rm(tempDir, { recursive: true, force: true });
      const record = (await listReportVersions(tx, date)).find((r) => r.version === current) ?? null;
      log?.info({ date, version: current }, 'report unchanged; no new version');
      return {
        version: current!,
        directory: path.join(dateDir, versionName(current!)),
        manifest: currentManifest,
        unchanged: true,
        record,
      };
    }

    // Never reuse a number: not one on disk (even unrecorded), not one recorded (even if deleted from disk).
    const recorded = (await latestReportVersion(tx, date))?.version ?? 0;
    const version = Math.max(recorded, ...(await versionsOnDisk(dateDir)), 0) + 1;
    const manifest: ReportManifest = {
      format: 'payrecon-report/1',
      business_date: date,
      timezone: opts.timezone,
      window: localWindow,
      version,
      supersedes: current,
      created_at: opts.now.toISOString(),
      content_hash: hash,
      run_ids: runIds,
      files,
    };
    await writeFileSynced(path.join(tempDir, 'manifest.json'), manifestText(manifest));
    const directory = path.join(dateDir, versionName(version));
    // Recorded first: if the rename fails the transaction rolls back; if the commit fails after
    // the rename, the next run sees vN on disk and takes N+1.
    const record = await insertReportVersion(tx, {
      businessDate: date,
      version,
      directory,
      manifest,
      contentHash: hash,
      createdAt: opts.now,
    });
    await publishVersion(tempDir, dateDir, version);
    await setCurrent(dateDir, version);
    log?.info({ date, version, directory, rows: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.rows])) }, 'report written');
    return { version, directory, manifest, unchanged: false, record };
  } catch (err) {
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

/** All five CSV files into dir; items and mismatches from one pass over the cursor. */
async function writeFiles(
  tx: Knex.Transaction,
  opts: WriteReportsOptions,
  dir: string,
  window: Window,
): Promise<{ files: Record<ReportFile, CsvFileResult>; runIds: string[] }> {
  const formatTime = timeFormatter(opts.timezone);
  const totals = new OrderTotalsAccumulator();
  const items = new CsvFile(path.join(dir, 'items.csv'), ITEM_COLUMNS);
  const mismatches = new CsvFile(path.join(dir, 'mismatches.csv'), ITEM_COLUMNS);
  try {
    for await (const page of streamReportItems(tx, window, opts.pageSize)) {
      for (const r of page) {
        const cells = itemRow(r, formatTime);
        const wait = items.write(cells);
        if (wait) await wait;
        if (r.verdict === 'mismatch') await mismatches.write(cells);
        totals.add(r);
      }
    }
  } catch (err) {
    await Promise.all([items.abort(), mismatches.abort()]);
    throw err;
  }
  const itemsResult = await items.close();
  const mismatchesResult = await mismatches.close();

  const balances = await balanceSnapshotsFor(tx, window);
  const rates = await rateSnapshotsFor(tx, window);
  const balancesResult = await writeAll(
    path.join(dir, 'balances.csv'),
    BALANCE_COLUMNS,
    balances.map((b) => balanceRow(b, formatTime)),
  );
  const ratesResult = await writeAll(
    path.join(dir, 'rates.csv'),
    RATE_COLUMNS,
    rates.map((r) => rateRow(r, formatTime)),
  );

  const currencies = [
    ...new Set([...(opts.currencies ?? []), ...totals.currencies, ...balances.map((b) => b.currency), ...rates.map((r) => r.currency)]),
  ].sort();
  const lastRates = lastRateByCurrency(rates);
  const summary: string[][] = [];
  for (const c of currencies) summary.push(...orderRows(c, totals, lastRates.get(c)));
  for (const c of currencies) {
    const own = balances.filter((b) => b.currency === c);
    const movement = own.length > 1 ? await finalizedMovement(tx, c, window) : NO_MOVEMENT;
    summary.push(rollForwardRow(c, own, movement, opts.tolerances?.[c] ?? '0'));
  }
  const summaryResult = await writeAll(path.join(dir, 'summary.csv'), SUMMARY_COLUMNS, summary);

  const runIds = sortRunIds([
    ...totals.runIds,
    ...balances.flatMap((b: BalanceSnapshotRow) => (b.run_id ? [b.run_id] : [])),
    ...rates.flatMap((r) => (r.run_id ? [r.run_id] : [])),
  ]);
  return {
    files: {
      'items.csv': itemsResult,
      'mismatches.csv': mismatchesResult,
      'summary.csv': summaryResult,
      'balances.csv': balancesResult,
      'rates.csv': ratesResult,
    },
    runIds,
  };
}

const NO_MOVEMENT: FinalizedMovement = {
  payments: { paidAmount: null, fee: null, count: 0 },
  payouts: { amount: null, fee: null, count: 0 },
};

async function writeAll(file: string, header: readonly string[], rows: readonly string[][]): Promise<CsvFileResult> {
  const csv = new CsvFile(file, header);
  try {
    for (const r of rows) await csv.write(r);
  } catch (err) {
    await csv.abort();
    throw err;
  }
  return csv.close();
}
