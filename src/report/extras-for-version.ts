import type { Knex } from 'knex';
import { reportedCodeCounts, reportedDays } from '../db/report-charts.ts';
import {
  listReportVersions,
  streamLateChanges,
  streamOpenItems,
  type BalanceSnapshotRow,
  type RateSnapshotRow,
  type Window,
} from '../db/reports.ts';
import type { SnapshotRollForward } from '../snapshot/rollforward.ts';
import { chartDays } from './charts/day-charts.ts';
import type { DayItemSheets } from './day-sheets.ts';
import type { CsvFiles, ExtraFileName, ExtraFileResult } from './manifest.ts';
import { AGING_BUCKETS, type OpenItemTotals } from './open-items.ts';
import {
  LATE_CHANGE_TABLE_COLUMNS,
  OPEN_ITEM_TABLE_COLUMNS,
  balancesTable,
  lateChangeTableRow,
  openItemTableRow,
  ratesTable,
} from './sheet-tables.ts';
import type { Table } from './table.ts';
import { ROLLFORWARD_SUMMARY } from './rollforward-tables.ts';
import { withCaseColumns } from './case-cells.ts';
import { withOpenUnknownOrders } from './unknown-orders.ts';
import type { OpenUnknownOrderRow } from '../db/unknown-orders.ts';
import { writeVersionExtras } from './version-extras.ts';

/** What the CSV pass learnt that the workbook, the charts and report.html show again. */
export interface ReportFacts {
  currencies: readonly string[];
  /** The summary tables the CSV pass wrote, one file each, in reading order. */
  summaryTables: readonly Table[];
  openTotals: OpenItemTotals;
  rollForwards: ReadonlyMap<string, SnapshotRollForward | null>;
  balances: readonly BalanceSnapshotRow[];
  rates: readonly RateSnapshotRow[];
  /** The workbook, its Items and Mismatches sheets written in the CSV pass. */
  daySheets: DayItemSheets;
  /** Unknown orders of earlier days still open, carried after the open items. */
  openUnknown: readonly OpenUnknownOrderRow[];
  /** journal.csv's table: the workbook's Journal sheet. */
  journal: Table;
}

export interface ExtrasScope {
  dir: string;
  date: string;
  timezone: string;
  version: number;
  now: Date;
  headline: string;
  partial: boolean;
  earlier: Window;
  earlierDays: { first: string; end: string };
  pageSize?: number;
  csv: CsvFiles;
  formatTime: (ms: number) => string;
}

/**
 * The workbook, charts and report.html of a new version, from the same REPEATABLE READ snapshot
 * as its CSVs: the open items and late changes are read again (a fresh cursor per sheet) rather
 * than held; the day's orders are in the workbook already (DayItemSheets).
 */
export async function writeExtrasForVersion(
  tx: Knex.Transaction,
  s: ExtrasScope,
  facts: ReportFacts,
): Promise<Partial<Record<ExtraFileName, ExtraFileResult>>> {
  const rollForward = facts.summaryTables.find((t) => t.name === ROLLFORWARD_SUMMARY.name);
  const days = chartDays(s.date);
  const earlierCodeCounts = await reportedCodeCounts(tx, { first: days[0], end: s.date });
  const earlierReportedDays = await reportedDays(tx, { first: days[0], end: s.date });
  const versions = (await listReportVersions(tx, s.date)).map((v) => ({
    version: v.version,
    createdAt: s.formatTime(v.created_at.getTime()),
    headline: (v.manifest as { headline?: string } | null)?.headline ?? null,
  }));
  return writeVersionExtras({
    dir: s.dir,
    date: s.date,
    timezone: s.timezone,
    version: s.version,
    createdAt: s.formatTime(s.now.getTime()),
    headline: s.headline,
    partial: s.partial,
    summary: facts.summaryTables,
    daySheets: facts.daySheets,
    openItems: {
      columns: OPEN_ITEM_TABLE_COLUMNS,
      pages: async function* () {
        for await (const page of withOpenUnknownOrders(
          tx,
          withCaseColumns(streamOpenItems(tx, s.earlier, s.timezone, s.pageSize), s.now),
          facts.openUnknown,
          s.now,
        ))
          yield page.map((r) => openItemTableRow(r, s.date));
      },
    },
    lateChanges: {
      columns: LATE_CHANGE_TABLE_COLUMNS,
      pages: async function* () {
        for await (const page of streamLateChanges(tx, s.earlierDays, s.earlier, s.timezone, s.pageSize))
          yield page.map(lateChangeTableRow);
      },
    },
    balances: balancesTable(facts.balances),
    rates: ratesTable(facts.rates),
    journal: facts.journal,
    earlierCodeCounts,
    earlierReportedDays,
    chart: {
      rollForward: facts.currencies.flatMap((c) => {
        const r = facts.rollForwards.get(c);
        if (!r || !r.opening || !r.closing) return [];
        const row = rollForward?.rows.find((x) => x[0] === c);
        const at = (name: string) => (row ? (row[rollForward!.columns.findIndex((k) => k.name === name)] as string | null) : null);
        return [
          {
            currency: c,
            opening: r.openingTotal,
            payments_in: at('payments_in'),
            payouts_out: at('payouts_out'),
            timing_movement: at('timing_movement'),
            closing: r.closingTotal,
            drift: r.drift,
          },
        ];
      }),
      agingBuckets: AGING_BUCKETS,
      aging: facts.openTotals
        .rows()
        .flatMap((t) => [...t.verdicts.entries()].map(([state, orders]) => ({ bucket: t.bucket, state, orders }))),
    },
    versions,
    csvRows: Object.fromEntries(Object.entries(s.csv).map(([name, f]) => [name, f!.rows])),
    formatTime: s.formatTime,
  });
}
