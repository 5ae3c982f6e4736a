import fs from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from '../log/logger.ts';
import {
  balanceSnapshotsFor,
  insertReportVersion,
  listReportVersions,
  lockReportDate,
  rateSnapshotsFor,
  streamLateChanges,
  streamOpenItems,
  streamReportItems,
  withReportDateLock,
  type BalanceSnapshotRow,
  type ReportVersionRecord,
  type Window,
} from '../db/reports.ts';
import { countDayOrders, recordVersionOrders } from '../db/report-orders.ts';
import { firstSeenWithCode } from '../db/late-postings.ts';
import { unknownOrdersOpen, unknownOrdersReceived } from '../db/unknown-orders.ts';
import { isCurrency } from '../money/decimal.ts';
import type { Drift } from '../recon/headline.ts';
import { dayRollForward, type SnapshotRollForward } from '../snapshot/rollforward.ts';
import { CsvFile, type CsvFileResult } from './csv-file.ts';
import { businessDay, dayIsPartial, type BusinessDay } from './date.ts';
import { timeFormatter } from './format.ts';
import { reportHeadline } from '../recon/headline.ts';
import { businessView } from './business-view.ts';
import { DayItemSheets } from './day-sheets.ts';
import { writeExtrasForVersion, type ReportFacts } from './extras-for-version.ts';
import { csvCells, csvHeader } from './csv-cells.ts';
import { ITEM_TABLE_COLUMNS, itemTableRow } from './item-table.ts';
import { unknownOrderTableRows, withOpenUnknownOrders } from './unknown-orders.ts';
import { withCaseColumns } from './case-cells.ts';
import { caseActivityTable, casesSummaryTable, unknownOrdersSummaryTable } from './case-tables.ts';
import { caseStateCountsOccurred, caseTransitionCounts, unresolvedCaseAges } from '../db/cases.ts';
import { caseSummary } from '../recon/case-figures.ts';
import {
  businessHash,
  contentHash,
  manifestText,
  sortRunIds,
  type CsvFiles,
  type ReportFile,
  type ReportManifest,
  type SummaryFile,
} from './manifest.ts';
import { closingRates, dayJournals, FeeDifferences, lateChangeOf } from './journal-day.ts';
import { journalSummaryTable } from './journal-summary.ts';
import { DEFAULT_JOURNAL_SETTINGS, writeJournalFiles, type JournalSettings } from './journal-files.ts';
import type { LateChange } from '../recon/journal.ts';
import type { ReconPolicy } from '../recon/types.ts';
import { OpenItemTotals } from './open-items.ts';
import { OrderTotalsAccumulator } from './order-totals.ts';
import {
  LATE_CHANGE_TABLE_COLUMNS,
  OPEN_ITEM_TABLE_COLUMNS,
  balancesTable,
  lateChangeTableRow,
  openItemTableRow,
  ratesTable,
} from './sheet-tables.ts';
import type { Table, TableColumn, TableRow } from './table.ts';
import { claimReportDir } from './report-dir-owner.ts';
import { installationId } from '../db/installation.ts';
import { lastRateByCurrency, lateChangesSummaryTable, openItemsSummaryTable, ordersTable } from './summary-tables.ts';
import { rollForwardTable, timingItemsTable } from './rollforward-tables.ts';
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
import { quarantineOrphans, type QuarantinedVersion } from './orphan-versions.ts';

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
  /** Earlier business days whose open items and late changes are carried (RECON_LOOKBACK_DAYS); default 30. */
  lookbackDays?: number;
  /** The database engine (default: told by the knex client); Postgres takes the date lock on a connection of its own. */
  engine?: 'postgres' | 'pglite';
  /** Rows fetched per cursor page. */
  pageSize?: number;
  /** Called as the write reaches each step (crash tests stop the process there); a throw fails the write there. */
  onStep?: (step: WriteStep) => void | Promise<void>;
  /** The chart of accounts and currencies of the journal files (JOURNAL_*); default the built-in accounts, USDT. */
  journal?: JournalSettings;
  /** FEE_SCHEDULE_FILE: the contract the journal's fee differences are measured against. */
  feeSchedule?: ReconPolicy['feeSchedule'];
}

/**
 * The steps of writing a version, in order: the files are in the temp dir; the version's rows are
 * inserted (not committed); the temp dir is renamed vN; CURRENT names vN; the transaction committed.
 */
export type WriteStep = 'written' | 'recorded' | 'published' | 'pointed' | 'committed';

export interface WriteReportsResult {
  version: number;
  /** Absolute path of the version directory (REPORT_DIR/<date>/vN). */
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
export async function writeReports(db: Knex, opts: WriteReportsOptions): Promise<WriteReportsResult> {
  const day = businessDay(opts.date, opts.timezone);
  const partial = dayIsPartial(day, opts.now);
  const dateDir = path.resolve(opts.reportDir, day.date);
  // Before anything is made in it: a folder of another database is refused whole.
  const owner = { installationId: await installationId(db), database: opts.databaseDescription ?? 'a payrecon database' };
  await claimReportDir(opts.reportDir, owner, opts.now);
  await ensureWritableDir(dateDir);
  const scope = reportScope(day, opts.lookbackDays ?? 30, partial);
  if (db.isTransaction) return writeInTransaction(db as Knex.Transaction, opts, scope, dateDir, true);
  const engine = opts.engine ?? engineOf(db);
  // Postgres: the lock first, on a connection of its own, and only then the snapshot (see withReportDateLock).
  const result = await withReportDateLock(db, engine, day.date, () =>
    db.transaction((tx) => writeInTransaction(tx, opts, scope, dateDir, engine === 'pglite'), { isolationLevel: 'repeatable read' }),
  );
  if (!result.unchanged) await opts.onStep?.('committed');
  return result;
}

/** What one version covers: the day, and the earlier days whose open items and late changes it carries. */
interface ReportScope {
  date: string;
  partial: boolean;
  lookbackDays: number;
  /** The day as UTC instants, and as local ones for the manifest. */
  window: Window;
  localWindow: { from: string; to: string };
  /** The lookback days before the day: as instants, and as dates [first, end). */
  earlier: Window;
  earlierDays: { first: string; end: string };
}

function reportScope(day: BusinessDay, lookbackDays: number, partial: boolean): ReportScope {
  const first = day.start.minus({ days: lookbackDays }).startOf('day');
  return {
    date: day.date,
    partial,
    lookbackDays,
    window: { from: day.start.toUTC().toISO()!, to: day.end.toUTC().toISO()! },
    localWindow: { from: day.start.toISO()!, to: day.end.toISO()! },
    earlier: { from: first.toUTC().toISO()!, to: day.start.toUTC().toISO()! },
    earlierDays: { first: first.toISODate()!, end: day.date },
  };
}

function engineOf(db: Knex): 'postgres' | 'pglite' {
  return (db.client as { config?: { client?: unknown } }).config?.client === 'pg' ? 'postgres' : 'pglite';
}

async function writeInTransaction(
  tx: Knex.Transaction,
  opts: WriteReportsOptions,
  scope: ReportScope,
  dateDir: string,
  lockHere: boolean,
): Promise<WriteReportsResult> {
  const log = opts.logger;
  const { date } = scope;
  // Taken here only where it is re-entrant or already the caller's concern (PGlite, a caller's
  // transaction); the version number also counts vN directories on disk, whatever the snapshot.
  if (lockHere) await lockReportDate(tx, date);
  const leftovers = await removeTempDirs(dateDir);
  if (leftovers.length) log?.warn({ dateDir, leftovers }, 'removed temp directories of an interrupted report run');
  const records = await listReportVersions(tx, date);
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
    daySheets = new DayItemSheets(tempDir, { date, timezone: opts.timezone, items: await countDayOrders(tx, scope.window) });
    const { files, runIds, headline, facts } = await writeFiles(tx, opts, scope, tempDir, daySheets);
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

    // Never reuse a number: not one on disk (even unrecorded or quarantined), not one recorded (even if deleted from disk).
    const version = Math.max(latest?.version ?? 0, ...(await numbersTakenOnDisk(dateDir)), 0) + 1;
    // The workbook, charts and report.html name the version, so they are written once it is known.
    const extras = await writeExtrasForVersion(
      tx,
      {
        dir: tempDir,
        date,
        timezone: opts.timezone,
        version,
        now: opts.now,
        headline,
        partial: scope.partial,
        earlier: scope.earlier,
        earlierDays: scope.earlierDays,
        pageSize: opts.pageSize,
        csv: files,
        formatTime: timeFormatter(opts.timezone),
      },
      facts,
    );
    const manifest: ReportManifest = {
      format: 'payrecon-report/2',
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
      run_ids: runIds,
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
    });
    // What this version says per order, for later reports' late_changes.csv: same snapshot as items.csv.
    await recordVersionOrders(tx, record.id, scope.window);
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

/** Every CSV file into dir; items, mismatches and the workbook's sheets of both from one pass over the cursor. */
async function writeFiles(
  tx: Knex.Transaction,
  opts: WriteReportsOptions,
  scope: ReportScope,
  dir: string,
  daySheets: DayItemSheets,
): Promise<{ files: CsvFiles; runIds: string[]; headline: string; facts: ReportFacts }> {
  const formatTime = timeFormatter(opts.timezone);
  const runIds = new Set<string>();
  const totals = new OrderTotalsAccumulator();
  const feeDifferences = new FeeDifferences(opts.feeSchedule);
  const itemHeader = csvHeader(ITEM_TABLE_COLUMNS);
  const items = new CsvFile(path.join(dir, 'items.csv'), itemHeader, businessView(itemHeader));
  const mismatches = new CsvFile(path.join(dir, 'mismatches.csv'), itemHeader, businessView(itemHeader));
  const unknownOrders = await unknownOrdersReceived(tx, scope.window);
  try {
    for await (const page of withCaseColumns(streamReportItems(tx, scope.window, opts.pageSize), opts.now)) {
      for (const r of page) {
        const row = itemTableRow(r, scope.date);
        const cells = csvCells(ITEM_TABLE_COLUMNS, row, formatTime);
        const wait = items.write(cells);
        if (wait) await wait;
        if (r.verdict === 'mismatch') await mismatches.write(cells);
        const sheetsWait = daySheets.add(row, r);
        if (sheetsWait) await sheetsWait;
        totals.add(r);
        feeDifferences.add(r);
      }
    }
    // After the merchant's own: the orders only the provider knows (UNKNOWN_ORDER), notified this day.
    for (const row of await unknownOrderTableRows(tx, unknownOrders, scope.date, opts.now)) {
      await mismatches.write(csvCells(ITEM_TABLE_COLUMNS, row, formatTime));
      const sheetsWait = daySheets.addMismatchOnly(row);
      if (sheetsWait) await sheetsWait;
    }
  } catch (err) {
    await Promise.all([items.abort(), mismatches.abort()]);
    throw err;
  }
  daySheets.close();
  const itemsResult = await items.close();
  const mismatchesResult = await mismatches.close();
  for (const id of totals.runIds) runIds.add(id);

  const openTotals = new OpenItemTotals();
  const openUnknown = await unknownOrdersOpen(tx, scope.earlier, opts.timezone);
  const openResult = await writeStream(
    path.join(dir, 'open_items.csv'),
    OPEN_ITEM_TABLE_COLUMNS,
    withOpenUnknownOrders(
      tx,
      withCaseColumns(streamOpenItems(tx, scope.earlier, opts.timezone, opts.pageSize), opts.now),
      openUnknown,
      opts.now,
    ),
    (r) => {
      openTotals.add(r, scope.date);
      if (r.run_id !== null) runIds.add(r.run_id);
      return openItemTableRow(r, scope.date);
    },
    formatTime,
  );
  const lateByCurrency = new Map<string, number>();
  const lateCandidates: Array<{ currency: string; orderId: string; change: LateChange }> = [];
  const lateResult = await writeStream(
    path.join(dir, 'late_changes.csv'),
    LATE_CHANGE_TABLE_COLUMNS,
    streamLateChanges(tx, scope.earlierDays, scope.earlier, opts.timezone, opts.pageSize),
    (r) => {
      lateByCurrency.set(r.currency, (lateByCurrency.get(r.currency) ?? 0) + 1);
      const change = lateChangeOf(r);
      if (change) lateCandidates.push({ currency: r.currency, orderId: r.order_id, change });
      if (r.run_id !== null) runIds.add(r.run_id);
      return lateChangeTableRow(r);
    },
    formatTime,
  );

  // Posted on the day a check first saw the change: a later day's report still lists it, but it was posted then.
  const codeOf = (c: LateChange) => (c.kind === 'reversal' ? 'STATUS' : 'FEE');
  const firstSeen = await firstSeenWithCode(
    tx,
    lateCandidates.map((l) => ({ direction: l.change.direction, orderId: l.orderId, code: codeOf(l.change) })),
  );
  const [dayFrom, dayTo] = [Date.parse(scope.window.from), Date.parse(scope.window.to)];
  const late = lateCandidates.filter((l) => {
    const at = firstSeen.get(`${l.change.direction}:${l.orderId}:${codeOf(l.change)}`);
    return at !== undefined && at >= dayFrom && at < dayTo;
  });
  const balances = await balanceSnapshotsFor(tx, scope.window);
  const rates = await rateSnapshotsFor(tx, scope.window);
  const balancesResult = await writeTable(dir, balancesTable(balances), formatTime);
  const ratesResult = await writeTable(dir, ratesTable(rates), formatTime);
  for (const b of balances as BalanceSnapshotRow[]) if (b.run_id) runIds.add(b.run_id);
  for (const r of rates) if (r.run_id) runIds.add(r.run_id);

  const currencies = [
    ...new Set([...(opts.currencies ?? []), ...totals.currencies, ...balances.map((b) => b.currency), ...rates.map((r) => r.currency)]),
  ].sort();
  const rollForwards = new Map<string, SnapshotRollForward | null>();
  for (const c of currencies) {
    rollForwards.set(
      c,
      isCurrency(c)
        ? await dayRollForward(tx, {
            currency: c,
            from: new Date(scope.window.from),
            to: new Date(scope.window.to),
            tolerance: opts.tolerances?.[c] ?? '0',
          })
        : null,
    );
  }
  const drifts: Drift[] = [...rollForwards.values()].flatMap((r) =>
    r && r.withinTolerance === false && r.drift !== null ? [{ currency: r.currency, drift: r.drift }] : [],
  );
  const journals = dayJournals({ date: scope.date, currencies, rollForwards, late, feeDifferences, rates });
  // Currencies with fewer than two snapshots in the window: their balances were not checked.
  const notChecked = [...rollForwards.values()].flatMap((r) => (r && r.drift === null ? [r.currency] : []));
  const overall = totals.overall();
  const headline = reportHeadline({
    balancesNotChecked: notChecked.length > 0 && notChecked.length === currencies.length ? 'all' : notChecked,
    orders: overall.orders,
    verdicts: overall.verdicts,
    drifts,
    partial: scope.partial,
    openItems: openTotals.count,
    lateChanges: lateResult.rows,
    unknownOrders: unknownOrders.length,
  });

  // One CSV file per summary table, each with its own header; the workbook, report.html and the
  // e-mail render these same tables.
  const summaryTables: Table[] = [
    ordersTable(currencies, totals, lastRateByCurrency(rates)),
    rollForwardTable(currencies, rollForwards),
    timingItemsTable(currencies, rollForwards),
    journalSummaryTable(journals),
    unknownOrdersSummaryTable(unknownOrders),
    totals.apart.table(),
    openItemsSummaryTable(openTotals),
    lateChangesSummaryTable(lateByCurrency),
    casesSummaryTable(await caseStateCountsOccurred(tx, scope.earlier.from, scope.window.to), opts.now),
    caseActivityTable(
      caseSummary(
        await caseTransitionCounts(tx, new Date(scope.window.from), new Date(scope.window.to)),
        await unresolvedCaseAges(tx, opts.now),
        currencies,
        opts.now,
      ),
    ),
  ];
  const summaryFiles: Partial<Record<ReportFile, CsvFileResult>> = {};
  for (const t of summaryTables) summaryFiles[`${t.name}.csv` as ReportFile] = await writeTable(dir, t, formatTime);
  const journal = await writeJournalFiles(
    journals.flatMap((j) => j.entries),
    { ...(opts.journal ?? DEFAULT_JOURNAL_SETTINGS), rates: closingRates(rates) },
    (t) => writeTable(dir, t, formatTime),
  );
  if (journal.skipped.length)
    opts.logger?.warn({ entries: journal.skipped }, 'journal entries left out of journal_xero.csv: no rate to the base currency');

  return {
    files: {
      'items.csv': itemsResult,
      'mismatches.csv': mismatchesResult,
      ...(summaryFiles as Record<SummaryFile, CsvFileResult>),
      'open_items.csv': openResult,
      'late_changes.csv': lateResult,
      'balances.csv': balancesResult,
      'rates.csv': ratesResult,
      ...(journal.files as Pick<CsvFiles, 'journal.csv' | 'journal_xero.csv' | 'journal_quickbooks.csv'>),
    },
    runIds: sortRunIds(runIds),
    headline,
    facts: { currencies, summaryTables, openTotals, rollForwards, balances, rates, daySheets, openUnknown, journal: journal.table },
  };
}

/** A streamed query into one CSV file, through its table definition. */
async function writeStream<T>(
  file: string,
  columns: readonly TableColumn[],
  pages: AsyncGenerator<T[]>,
  toRow: (r: T) => TableRow,
  formatTime: (ms: number) => string,
): Promise<CsvFileResult> {
  const header = csvHeader(columns);
  const csv = new CsvFile(file, header, businessView(header));
  try {
    for await (const page of pages) {
      for (const r of page) {
        const wait = csv.write(csvCells(columns, toRow(r), formatTime));
        if (wait) await wait;
      }
    }
  } catch (err) {
    await csv.abort();
    throw err;
  }
  return csv.close();
}

/** A small table into `<name>.csv`, through its table definition. */
async function writeTable(dir: string, table: Table, formatTime: (ms: number) => string): Promise<CsvFileResult> {
  const header = csvHeader(table.columns);
  const csv = new CsvFile(path.join(dir, `${table.name}.csv`), header, businessView(header));
  try {
    for (const r of table.rows) await csv.write(csvCells(table.columns, r, formatTime));
  } catch (err) {
    await csv.abort();
    throw err;
  }
  return csv.close();
}
