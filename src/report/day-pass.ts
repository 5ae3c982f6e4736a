import path from 'node:path';
import type { Knex } from '../db/knex-types.ts';
import type { Logger } from '../log/logger.ts';
import {
  balanceSnapshotsFor,
  rateSnapshotsFor,
  streamLateChanges,
  streamOpenItems,
  streamReportItems,
  type BalanceSnapshotRow,
  type RateSnapshotRow,
} from '../db/reports.ts';
import { unknownOrdersOpen, unknownOrdersReceived, type OpenUnknownOrderRow, type UnknownOrderRow } from '../db/unknown-orders.ts';
import { isCurrency } from '../money/decimal.ts';
import { reportHeadline, type Drift } from '../recon/headline.ts';
import type { JournalEntry } from '../recon/journal-types.ts';
import { baseRateOf } from './journal-tables.ts';
import type { ReconPolicy } from '../recon/types.ts';
import { dayRollForward, type SnapshotRollForward } from '../snapshot/rollforward.ts';
import { businessView } from './business-view.ts';
import { withCaseColumns } from './case-cells.ts';
import { csvCells, csvHeader } from './csv-cells.ts';
import { CsvFile, type CsvFileResult } from './csv-file.ts';
import type { DayItemSheets } from './day-sheets.ts';
import { timeFormatter } from '../tabular/format.ts';
import { ITEM_TABLE_COLUMNS, itemTableRow } from './item-table.ts';
import { closingRates, dayJournals, FeeDifferences } from './journal-day.ts';
import { dayLate, postingOf, type VersionPosting } from './journal-ledger.ts';
import { DEFAULT_JOURNAL_SETTINGS, writeJournalFiles, type JournalSettings } from './journal-files.ts';
import { sortRunIds, type CsvFiles } from './manifest.ts';
import { buildSummaryFiles } from './report-tables.ts';
import { OpenItemTotals } from './open-items.ts';
import { OrderTotalsAccumulator } from './order-totals.ts';
import type { ReportScope } from './report-scope.ts';
import {
  LATE_CHANGE_TABLE_COLUMNS,
  OPEN_ITEM_TABLE_COLUMNS,
  balancesTable,
  lateChangeTableRow,
  openItemTableRow,
  ratesTable,
} from './sheet-tables.ts';
import type { Table } from '../tabular/table.ts';
import { writeStreamFile, writeTableFile } from './table-files.ts';
import { unknownOrderTableRows, withOpenUnknownOrders } from './unknown-orders.ts';

/** What the pass needs of writeReports' options. */
export interface DayPassOptions {
  timezone: string;
  now: Date;
  pageSize?: number;
  currencies?: readonly string[];
  tolerances?: Readonly<Record<string, string>>;
  /** How long a recorded movement may take to reach the balance (MOVEMENT_LAG_MIN); default 10 minutes. */
  movementLagMs?: number;
  journal?: JournalSettings;
  feeSchedule?: ReconPolicy['feeSchedule'];
  logger?: Logger;
}

/** What the pass knows of the version it writes for: its number (the journal numbers name it). */
export interface PassVersion {
  version: number;
}

/**
 * What one version says, read once: the value the pass over the day hands on. The CSV files are
 * written on the way; the workbook, the charts and report.html are made from this (version-extras.ts).
 */
export interface DayFacts {
  /** Every CSV file of the version, as written. */
  files: CsvFiles;
  /** job_runs whose checks or snapshots appear in the files, ascending. */
  runIds: string[];
  headline: string;
  /** The version's currencies, sorted: configured, and seen in the day's orders, balances or rates. */
  currencies: readonly string[];
  /** The summary tables in reading order, one CSV file each (report-tables.ts says where else each goes). */
  summaryTables: readonly Table[];
  openTotals: OpenItemTotals;
  /** Unknown orders of earlier days still open, carried after the open items (a second pass reads them again). */
  openUnknown: readonly OpenUnknownOrderRow[];
  rollForwards: ReadonlyMap<string, SnapshotRollForward | null>;
  /** balances.csv, rates.csv and journal.csv as tables: the workbook shows them again. */
  balances: Table;
  rates: Table;
  journal: Table;
  trialBalance: Table;
  /** This version's posting file, appended to the ledger when the version is recorded. */
  posting: VersionPosting;
}

/**
 * The pass over business day D, in the version's snapshot, in this order: D's orders (items.csv,
 * mismatches.csv and the workbook's day sheets, in one cursor); the earlier days' open items and
 * late changes; D's balance and rate snapshots; the roll-forward per currency; the journal and the
 * headline; the summary tables. Each stage is a function below, in the same order.
 */
export async function passOverDay(
  tx: Knex.Transaction,
  opts: DayPassOptions,
  scope: ReportScope,
  dir: string,
  daySheets: DayItemSheets,
  v: PassVersion,
): Promise<DayFacts> {
  const formatTime = timeFormatter(opts.timezone);
  const orders = await dayOrders(tx, opts, scope, dir, daySheets, formatTime);
  const open = await openItems(tx, opts, scope, dir, formatTime);
  const late = await lateChanges(tx, opts, scope, dir, formatTime);
  const snapshots = await daySnapshots(tx, scope, dir, formatTime);
  const currencies = [
    ...new Set([
      ...(opts.currencies ?? []),
      ...orders.totals.currencies,
      ...snapshots.balanceRows.map((b) => b.currency),
      ...snapshots.rateRows.map((r) => r.currency),
    ]),
  ].sort();
  const rollForwards = await rollForwardsOf(tx, opts, scope, currencies);
  const lateOfDay = await dayLate(tx, scope, opts.timezone, opts.now);
  const journals = dayJournals({
    date: scope.date,
    currencies,
    rollForwards,
    late: lateOfDay.inWindow,
    restores: lateOfDay.restores,
    feeDifferences: orders.feeDifferences,
    rates: snapshots.rateRows,
  });
  const rates = closingRates(snapshots.rateRows);
  const journalSettings = opts.journal ?? DEFAULT_JOURNAL_SETTINGS;
  const postable = (e: JournalEntry) => !journalSettings.base || baseRateOf(e, journalSettings) !== null;
  const posting = await postingOf(
    tx,
    scope,
    { version: v.version, timezone: opts.timezone, now: opts.now, fxRevaluation: journalSettings.fxRevaluation ?? false },
    journals,
    lateOfDay,
    rates,
    postable,
  );
  const headline = `${headlineOf(scope, currencies, rollForwards, orders, open, late)}${journalHeadline(posting, journalSettings.base)}`;
  const summary = await buildSummaryFiles(
    {
      tx,
      now: opts.now,
      scope,
      currencies,
      totals: orders.totals,
      unknown: orders.unknown,
      openTotals: open.totals,
      lateByCurrency: late.byCurrency,
      rollForwards,
      journals,
      rateRows: snapshots.rateRows,
    },
    (t) => writeTableFile(dir, t, formatTime),
  );
  const journal = await writeJournalFiles(posting, { ...journalSettings, rates, postingFile: `${scope.date}/v${v.version}` }, (t) =>
    writeTableFile(dir, t, formatTime),
  );
  // With no base currency the import files are empty by design; with one, entries without a rate were held back before this.
  if (journalSettings.base && journal.skipped.length)
    opts.logger?.warn({ entries: journal.skipped }, 'journal entries left out of journal_xero.csv: no rate to the base currency');

  return {
    files: {
      'items.csv': orders.items,
      'mismatches.csv': orders.mismatches,
      ...summary.files,
      'open_items.csv': open.file,
      'late_changes.csv': late.file,
      'balances.csv': snapshots.balancesFile,
      'rates.csv': snapshots.ratesFile,
      ...(journal.files as Pick<
        CsvFiles,
        'journal.csv' | 'journal_xero.csv' | 'journal_quickbooks.csv' | 'journal_posting.csv' | 'trial_balance.csv'
      >),
    },
    runIds: sortRunIds([...orders.totals.runIds, ...open.runIds, ...late.runIds, ...snapshots.runIds]),
    headline,
    currencies,
    summaryTables: summary.tables,
    openTotals: open.totals,
    openUnknown: open.unknown,
    rollForwards,
    balances: snapshots.balances,
    rates: snapshots.rates,
    journal: journal.table,
    trialBalance: journal.trialBalance,
    posting,
  };
}

/**
 * What the headline adds about the journal: entries held back for want of a rate (named, so the rates
 * file can be fixed), or a version whose journal was all posted before. A first posting adds nothing.
 */
function journalHeadline(posting: VersionPosting, base: string): string {
  const parts: string[] = [];
  if (posting.heldBack.length > 0) {
    const missing = [...new Set(posting.heldBack.map((e) => `${e.currency} ${e.date}`))].sort();
    parts.push(
      `journal: ${posting.heldBack.length} ${posting.heldBack.length === 1 ? 'entry' : 'entries'} held back, no rate to ${base} for ${missing.join(', ')} (JOURNAL_RATES_FILE)`,
    );
  } else if (posting.entries.length === 0 && posting.day.length > 0) parts.push('journal: nothing new to post');
  return parts.map((p) => ` · ${p}`).join('');
}

interface DayOrders {
  items: CsvFileResult;
  mismatches: CsvFileResult;
  totals: OrderTotalsAccumulator;
  feeDifferences: FeeDifferences;
  /** Orders only the provider knows (UNKNOWN_ORDER), notified during the day. */
  unknown: UnknownOrderRow[];
}

/** D's orders in one cursor: items.csv, mismatches.csv, the workbook's Items and Mismatches sheets, the totals. */
async function dayOrders(
  tx: Knex.Transaction,
  opts: DayPassOptions,
  scope: ReportScope,
  dir: string,
  daySheets: DayItemSheets,
  formatTime: (ms: number) => string,
): Promise<DayOrders> {
  const totals = new OrderTotalsAccumulator();
  const feeDifferences = new FeeDifferences(opts.feeSchedule);
  const itemHeader = csvHeader(ITEM_TABLE_COLUMNS);
  const items = new CsvFile(path.join(dir, 'items.csv'), itemHeader, businessView(itemHeader));
  const mismatches = new CsvFile(path.join(dir, 'mismatches.csv'), itemHeader, businessView(itemHeader));
  const unknown = await unknownOrdersReceived(tx, scope.window, scope.account);
  try {
    for await (const page of withCaseColumns(streamReportItems(tx, scope.window, opts.pageSize, scope.account), opts.now)) {
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
    for (const row of await unknownOrderTableRows(tx, unknown, scope.date, opts.now)) {
      await mismatches.write(csvCells(ITEM_TABLE_COLUMNS, row, formatTime));
      const sheetsWait = daySheets.addMismatchOnly(row);
      if (sheetsWait) await sheetsWait;
    }
  } catch (err) {
    await Promise.all([items.abort(), mismatches.abort()]);
    throw err;
  }
  daySheets.close();
  return { items: await items.close(), mismatches: await mismatches.close(), totals, feeDifferences, unknown };
}

interface OpenItems {
  file: CsvFileResult;
  totals: OpenItemTotals;
  unknown: OpenUnknownOrderRow[];
  runIds: string[];
}

/** The earlier days' orders still open, then their unknown orders still open: open_items.csv. */
async function openItems(
  tx: Knex.Transaction,
  opts: DayPassOptions,
  scope: ReportScope,
  dir: string,
  formatTime: (ms: number) => string,
): Promise<OpenItems> {
  const totals = new OpenItemTotals();
  const runIds: string[] = [];
  const unknown = await unknownOrdersOpen(tx, scope.earlier, opts.timezone, scope.account);
  const file = await writeStreamFile(
    path.join(dir, 'open_items.csv'),
    OPEN_ITEM_TABLE_COLUMNS,
    withOpenUnknownOrders(
      tx,
      withCaseColumns(streamOpenItems(tx, scope.earlier, opts.timezone, opts.pageSize, scope.account), opts.now),
      unknown,
      opts.now,
    ),
    (r) => {
      totals.add(r, scope.date);
      if (r.run_id !== null) runIds.push(r.run_id);
      return openItemTableRow(r, scope.date);
    },
    formatTime,
  );
  return { file, totals, unknown, runIds };
}

interface LateChanges {
  file: CsvFileResult;
  byCurrency: Map<string, number>;
  runIds: string[];
}

/** The earlier days' orders whose verdict or codes changed since their day's report: late_changes.csv (for reading; the journal's late changes come from the checks: journal-ledger.ts). */
async function lateChanges(
  tx: Knex.Transaction,
  opts: DayPassOptions,
  scope: ReportScope,
  dir: string,
  formatTime: (ms: number) => string,
): Promise<LateChanges> {
  const byCurrency = new Map<string, number>();
  const runIds: string[] = [];
  const file = await writeStreamFile(
    path.join(dir, 'late_changes.csv'),
    LATE_CHANGE_TABLE_COLUMNS,
    streamLateChanges(tx, scope.earlierDays, scope.earlier, opts.timezone, opts.pageSize, scope.account),
    (r) => {
      byCurrency.set(r.currency, (byCurrency.get(r.currency) ?? 0) + 1);
      if (r.run_id !== null) runIds.push(r.run_id);
      return lateChangeTableRow(r);
    },
    formatTime,
  );
  return { file, byCurrency, runIds };
}

interface DaySnapshots {
  balanceRows: BalanceSnapshotRow[];
  rateRows: RateSnapshotRow[];
  balances: Table;
  rates: Table;
  balancesFile: CsvFileResult;
  ratesFile: CsvFileResult;
  runIds: string[];
}

/** D's balance and rate snapshots: balances.csv and rates.csv. */
async function daySnapshots(
  tx: Knex.Transaction,
  scope: ReportScope,
  dir: string,
  formatTime: (ms: number) => string,
): Promise<DaySnapshots> {
  const balanceRows = await balanceSnapshotsFor(tx, scope.window, scope.account);
  const rateRows = await rateSnapshotsFor(tx, scope.window, scope.account);
  const balances = balancesTable(balanceRows);
  const rates = ratesTable(rateRows);
  const balancesFile = await writeTableFile(dir, balances, formatTime);
  const ratesFile = await writeTableFile(dir, rates, formatTime);
  const runIds = [...balanceRows, ...rateRows].flatMap((s) => (s.run_id ? [s.run_id] : []));
  return { balanceRows, rateRows, balances, rates, balancesFile, ratesFile, runIds };
}

/** Per currency, D's settlement roll-forward (null for a currency payrecon does not know). */
async function rollForwardsOf(
  tx: Knex.Transaction,
  opts: DayPassOptions,
  scope: ReportScope,
  currencies: readonly string[],
): Promise<Map<string, SnapshotRollForward | null>> {
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
            movementLagMs: opts.movementLagMs,
            account: scope.account,
          })
        : null,
    );
  }
  return rollForwards;
}

/** The one line the summary, the manifest and the e-mail's subject lead with. */
function headlineOf(
  scope: ReportScope,
  currencies: readonly string[],
  rollForwards: ReadonlyMap<string, SnapshotRollForward | null>,
  orders: DayOrders,
  open: OpenItems,
  late: LateChanges,
): string {
  const drifts: Drift[] = [...rollForwards.values()].flatMap((r) =>
    r && r.withinTolerance === false && r.drift !== null ? [{ currency: r.currency, drift: r.drift }] : [],
  );
  // Currencies with fewer than two snapshots in the window: their balances were not checked.
  const notChecked = [...rollForwards.values()].flatMap((r) => (r && r.drift === null ? [r.currency] : []));
  const overall = orders.totals.overall();
  return reportHeadline({
    balancesNotChecked: notChecked.length > 0 && notChecked.length === currencies.length ? 'all' : notChecked,
    orders: overall.orders,
    verdicts: overall.verdicts,
    drifts,
    partial: scope.partial,
    openItems: open.totals.count,
    lateChanges: late.file.rows,
    unknownOrders: orders.unknown.length,
  });
}
