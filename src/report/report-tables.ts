import type { Knex } from '../db/knex-types.ts';
import { caseStateCountsOccurred, caseTransitionCounts, unresolvedCaseAges } from '../db/cases.ts';
import type { RateSnapshotRow } from '../db/reports.ts';
import type { UnknownOrderRow } from '../db/unknown-orders.ts';
import { caseSummary } from '../recon/case-figures.ts';
import type { JournalDay } from '../recon/journal.ts';
import type { SnapshotRollForward } from '../snapshot/rollforward.ts';
import {
  CASE_ACTIVITY,
  CASES_SUMMARY,
  UNKNOWN_ORDERS_SUMMARY,
  caseActivityTable,
  casesSummaryTable,
  unknownOrdersSummaryTable,
} from './case-tables.ts';
import { IDENTITY_MISMATCHES_SUMMARY } from './identity-mismatches.ts';
import { JOURNAL_SUMMARY, journalSummaryTable } from './journal-summary.ts';
import { MOVEMENTS_TABLE, movementsTable } from './movement-table.ts';
import type { OpenItemTotals } from './open-items.ts';
import type { OrderTotalsAccumulator } from './order-totals.ts';
import type { ReportScope } from './report-scope.ts';
import { ROLLFORWARD_SUMMARY, TIMING_ITEMS, rollForwardTable, timingItemsTable } from './rollforward-tables.ts';
import {
  LATE_CHANGES_SUMMARY,
  OPEN_ITEMS_SUMMARY,
  ORDERS_SUMMARY,
  lastRateByCurrency,
  lateChangesSummaryTable,
  openItemsSummaryTable,
  ordersTable,
} from './summary-tables.ts';
import type { Table, TableSpec } from '../tabular/table.ts';

/**
 * The registry of a version's tables: one entry per table, keyed by its name (its CSV file is
 * `<name>.csv`; the entries are in manifest order). Everything else derives from it: the file names
 * and their type (manifest.ts), the summary tables, their definitions and who builds them (a summary
 * entry without its `build` does not typecheck), the workbook's sheets and tab order, report.html's
 * tables and list of files, what the e-mail shows and attaches, report-files.md's checked list.
 * A new table is an entry here.
 */
interface TableEntryBase {
  /** What it is for, as report.html's list of files says it. */
  readonly purpose: string;
  /** The workbook's tab that carries it, or null (the Xero and QuickBooks layouts are for import only). */
  readonly sheet: string | null;
  /** The tab's place among the workbook's tabs (money and what needs a person first); without one, it follows in the order written. */
  readonly tab?: number;
  /** report.html: the whole table, its first rows (the rest are in the file and the workbook), or only the file listed. */
  readonly html: 'table' | 'first rows' | null;
  /** The e-mail: the table in the body (a summary table, shown when it has rows), the file attached, or neither. */
  readonly email: 'body' | 'attached' | null;
}

/** A table the day's pass writes as it reads (items, open items, snapshots) or the journal writer writes (journal-files.ts). */
interface FileTableSpec extends TableEntryBase {
  readonly kind: 'file';
}

/** What the day's pass learnt that the summary tables are built from (day-pass.ts). */
export interface SummaryDay {
  readonly tx: Knex.Transaction;
  readonly now: Date;
  readonly scope: ReportScope;
  /** The version's currencies, sorted. */
  readonly currencies: readonly string[];
  readonly totals: OrderTotalsAccumulator;
  /** Orders only the provider knows (UNKNOWN_ORDER), notified during the day. */
  readonly unknown: readonly UnknownOrderRow[];
  readonly openTotals: OpenItemTotals;
  readonly lateByCurrency: ReadonlyMap<string, number>;
  readonly rollForwards: ReadonlyMap<string, SnapshotRollForward | null>;
  readonly journals: JournalDay[];
  readonly rateRows: readonly RateSnapshotRow[];
}

/** A summary table: one small CSV file, shown again by the workbook, report.html and the e-mail's body. */
interface SummaryTableSpec extends TableEntryBase {
  readonly kind: 'summary';
  /** Its columns: what reads its CSV file back (the e-mail) renders through them. */
  readonly spec: TableSpec;
  /** Its rows for the day. */
  readonly build: (day: SummaryDay) => Table | Promise<Table>;
}

type ReportTableSpec = FileTableSpec | SummaryTableSpec;

const TABLES = {
  items: {
    kind: 'file',
    purpose: 'every order of the day with its latest check: both sides, verdict, codes, signed difference',
    sheet: 'Items',
    tab: 10,
    html: null,
    email: null,
  },
  mismatches: {
    kind: 'file',
    purpose: 'the mismatched orders only, in the same columns as items.csv',
    sheet: 'Mismatches',
    tab: 4,
    html: 'first rows',
    email: 'attached',
  },
  summary_orders: {
    kind: 'summary',
    purpose:
      'per currency and direction: counts by verdict and by provider status (failed included), gross, paid, fees, net (payments paid − fees; payouts −(amount + fees), an outflow); a total row per currency',
    sheet: 'Summary',
    tab: 1,
    html: 'table',
    email: 'body',
    spec: ORDERS_SUMMARY,
    build: (d) => ordersTable([...d.currencies], d.totals, lastRateByCurrency(d.rateRows)),
  },
  summary_rollforward: {
    kind: 'summary',
    purpose:
      'per currency: opening and closing balance snapshots with their times, movement by orders, timing items (count and movement), expected closing, drift, within tolerance',
    sheet: 'Roll-forward',
    tab: 7,
    html: 'table',
    email: 'body',
    spec: ROLLFORWARD_SUMMARY,
    build: (d) => rollForwardTable([...d.currencies], d.rollForwards),
  },
  timing_items: {
    kind: 'summary',
    purpose:
      "the roll-forward's timing items: orders that may have become final on either side of a snapshot, and the side each was counted on",
    sheet: 'Timing items',
    tab: 8,
    html: 'table',
    email: 'body',
    spec: TIMING_ITEMS,
    build: (d) => timingItemsTable([...d.currencies], d.rollForwards),
  },
  movements: {
    kind: 'summary',
    purpose:
      "the recorded, approved top-ups, withdrawals and provider adjustments the day's roll-forward counted, one row each: amount and balance effect, moment, between the snapshots or a timing item, USDT leg and rate, who recorded and who approved it, its bank statement match (matched, unmatched, no bank leg) and the bank difference",
    sheet: 'Movements',
    tab: 9,
    html: 'table',
    email: 'body',
    spec: MOVEMENTS_TABLE,
    build: (d) => movementsTable(d.tx, [...d.currencies], d.rollForwards),
  },
  summary_journal: {
    kind: 'summary',
    purpose:
      'per currency: the journal’s entries, debits and credits (equal), wallet movement (= closing − opening), suspense, fees above contract, USDT totals',
    sheet: 'Journal per currency',
    html: 'table',
    email: 'body',
    spec: JOURNAL_SUMMARY,
    build: (d) => journalSummaryTable(d.journals),
  },
  summary_unknown_orders: {
    kind: 'summary',
    purpose:
      'orders the provider confirmed that we have no record of (UNKNOWN_ORDER), counted per currency and direction, with the money they moved',
    sheet: 'Unknown orders',
    tab: 13,
    html: 'table',
    email: 'body',
    spec: UNKNOWN_ORDERS_SUMMARY,
    build: (d) => unknownOrdersSummaryTable(d.unknown),
  },
  summary_identity_mismatches: {
    kind: 'summary',
    purpose:
      "orders whose provider record is another order, another method or in another currency (CURRENCY, METHOD, MERCHANT_REF), per provider currency, direction and order currency, with the provider's money: in no currency's totals of summary_orders.csv",
    sheet: 'Identity mismatches',
    tab: 14,
    html: 'table',
    email: 'body',
    spec: IDENTITY_MISMATCHES_SUMMARY,
    build: (d) => d.totals.apart.table(),
  },
  summary_open_items: {
    kind: 'summary',
    purpose: 'open items of earlier days counted per currency and aging bucket',
    sheet: 'Open items by age',
    tab: 15,
    html: 'table',
    email: 'body',
    spec: OPEN_ITEMS_SUMMARY,
    build: (d) => openItemsSummaryTable(d.openTotals),
  },
  summary_late_changes: {
    kind: 'summary',
    purpose: 'late changes to earlier days counted per currency',
    sheet: 'Late changes by currency',
    tab: 16,
    html: 'table',
    email: 'body',
    spec: LATE_CHANGES_SUMMARY,
    build: (d) => lateChangesSummaryTable(d.lateByCurrency),
  },
  summary_cases: {
    kind: 'summary',
    purpose: 'the cases of the day and the lookback days per currency and code: open, acknowledged, resolved, written off, oldest open age',
    sheet: 'Cases',
    tab: 17,
    html: 'table',
    email: 'body',
    spec: CASES_SUMMARY,
    build: async (d) =>
      casesSummaryTable(await caseStateCountsOccurred(d.tx, d.scope.earlier.from, d.scope.window.to, d.scope.account), d.now),
  },
  summary_case_activity: {
    kind: 'summary',
    purpose: 'per currency: cases opened and resolved (by reason) during the day, and every case still open by age',
    sheet: 'Case activity',
    tab: 18,
    html: 'table',
    email: 'body',
    spec: CASE_ACTIVITY,
    build: async (d) =>
      caseActivityTable(
        caseSummary(
          await caseTransitionCounts(d.tx, new Date(d.scope.window.from), new Date(d.scope.window.to), d.scope.account),
          await unresolvedCaseAges(d.tx, d.now, d.scope.account),
          [...d.currencies],
          d.now,
        ),
      ),
  },
  open_items: {
    kind: 'file',
    purpose: 'orders of earlier days still pending, unchecked, in error or mismatched, with their age',
    sheet: 'Open items',
    tab: 5,
    html: null,
    email: null,
  },
  late_changes: {
    kind: 'file',
    purpose: "orders of earlier days whose verdict or codes changed since their day's last report",
    sheet: 'Late changes',
    tab: 6,
    html: null,
    email: null,
  },
  balances: {
    kind: 'file',
    purpose: 'the balance snapshots of the day (total_excluding_credit = available + pending + held; credit is not funds)',
    sheet: 'Balances',
    tab: 11,
    html: null,
    email: null,
  },
  rates: {
    kind: 'file',
    purpose: 'the USDT rate snapshots of the day',
    sheet: 'Rates',
    tab: 12,
    html: null,
    email: null,
  },
  journal: {
    kind: 'file',
    purpose:
      'the day’s double-entry journal: one balanced entry per currency and kind, a role and account per line, debit/credit in the currency and in USDT (docs/guides/for-accounting.md)',
    sheet: 'Journal',
    tab: 2,
    html: null,
    email: 'attached',
  },
  journal_xero: {
    kind: 'file',
    purpose:
      'the journal in Xero’s manual journal import layout, in JOURNAL_BASE_CURRENCY; past 300 lines continued in journal_xero_2.csv, …',
    sheet: null,
    html: null,
    email: 'attached',
  },
  journal_quickbooks: {
    kind: 'file',
    purpose: 'the journal in QuickBooks Online’s journal import layout, in each entry’s currency with its exchange rate',
    sheet: null,
    html: null,
    email: 'attached',
  },
  journal_posting: {
    kind: 'file',
    purpose:
      'what this version posts: only the lines no earlier posting file carried (the day on its first version; adjusting entries on a rerun); journal_xero.csv and journal_quickbooks.csv hold the same entries',
    sheet: null,
    html: null,
    email: 'attached',
  },
  trial_balance: {
    kind: 'file',
    purpose: 'each account’s running balance per currency once every posting file up to and including this one is posted, in order',
    sheet: 'Trial balance',
    tab: 3,
    html: null,
    email: null,
  },
} as const satisfies Record<string, ReportTableSpec>;

type Tables = typeof TABLES;
export type ReportTableName = keyof Tables;
export type SummaryTableName = { [N in ReportTableName]: Tables[N] extends { kind: 'summary' } ? N : never }[ReportTableName];

/** An entry with its name. */
export type ReportTableEntry = ReportTableSpec & { readonly name: ReportTableName };
export type SummaryTableEntry = SummaryTableSpec & { readonly name: SummaryTableName };

/** Every table in manifest order. */
export const REPORT_TABLES: readonly ReportTableEntry[] = (Object.keys(TABLES) as ReportTableName[]).map((name) => ({
  name,
  ...TABLES[name],
}));

/** The summary tables in reading order, one CSV file each. */
export const SUMMARY_TABLES: readonly SummaryTableEntry[] = REPORT_TABLES.filter((t): t is SummaryTableEntry => t.kind === 'summary');

/** The summary tables' definitions in reading order (what reads their CSV files back renders through them). */
export const SUMMARY_SPECS: readonly TableSpec[] = SUMMARY_TABLES.map((t) => t.spec);

/**
 * The workbook's tabs in reading order (they are written in another): the sheets with a `tab`, money
 * and what needs a person first (the journal, what accounting opens, right after the Summary). A sheet without one
 * follows, in the order written.
 */
export const WORKBOOK_TABS: readonly string[] = REPORT_TABLES.flatMap((t) => (t.sheet !== null && t.tab !== undefined ? [t] : []))
  .sort((a, b) => a.tab! - b.tab!)
  .map((t) => t.sheet!);

/**
 * Per summary table, in reading order, its table for the day and what `write` makes of it: a value
 * for every summary file by construction (the keys are the registry's), so none can be left out.
 */
export async function buildSummaryFiles<T>(
  day: SummaryDay,
  write: (table: Table) => Promise<T>,
): Promise<{ tables: Table[]; files: Record<`${SummaryTableName}.csv`, T> }> {
  const tables: Table[] = [];
  const files: Partial<Record<`${SummaryTableName}.csv`, T>> = {};
  for (const entry of SUMMARY_TABLES) {
    const table = await entry.build(day);
    if (table.name !== entry.name) throw new Error(`summary table ${entry.name}: its build made ${table.name}`);
    tables.push(table);
    files[`${entry.name}.csv`] = await write(table);
  }
  // Every key was set by the loop over SUMMARY_TABLES, which holds every SummaryTableName.
  return { tables, files: files as Record<`${SummaryTableName}.csv`, T> };
}

const BY_NAME = new Map<string, ReportTableEntry>(REPORT_TABLES.map((t) => [t.name, t]));

/** The index entry of a table, by its name; undefined for a name not in the index (journal_xero_2, …). */
export function reportTable(name: string): ReportTableEntry | undefined {
  return BY_NAME.get(name);
}
