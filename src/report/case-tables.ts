import type { CaseStateCountRow } from '../db/cases.ts';
import { COLUMN } from './columns.ts';
import type { UnknownOrderRow } from '../db/unknown-orders.ts';
import { Decimal } from '../money/decimal.ts';
import { SUMMARY_REASONS, wholeDaysSince, type CaseSummaryRow } from '../recon/case-figures.ts';
import { AGE_BUCKETS } from '../recon/cases.ts';
import type { Table, TableRow, TableSpec } from '../tabular/table.ts';

/**
 * The summary tables about cases and UNKNOWN_ORDER findings: one CSV file each, and the same
 * tables in the workbook's Summary sheet, report.html and the e-mail. Choices, for accounting:
 * - Cases by currency and code: what kind of exception, and where each stands. Written off is its
 *   own column: the finding is still there, on purpose (not "resolved").
 * - Ages count to the instant the version is written, so they move with the clock and are not
 *   business content (business-view.ts): the same data a day later writes no new version.
 */

export const CASES_SUMMARY: TableSpec = {
  name: 'summary_cases',
  title: 'Cases by currency and code',
  columns: [
    COLUMN.currency,
    { name: 'code', kind: 'text', width: 18 },
    { name: 'open', kind: 'count' },
    { name: 'acknowledged', kind: 'count' },
    { name: 'resolved', kind: 'count' },
    { name: 'written_off', kind: 'count', label: 'written off' },
    { name: 'oldest_open_days', kind: 'count', label: 'oldest open (days)' },
  ],
  notes: [
    'The cases of the orders and findings of this day and of the lookback days before it (whose open items this report carries), as they stand when this version was written (payrecon cases list).',
    'open and acknowledged still need a person; resolved includes cleared by a later check; written off stays so while the finding persists. oldest open: whole days since the oldest open or acknowledged case was (re)opened.',
  ],
};

export function casesSummaryTable(rows: readonly CaseStateCountRow[], now: Date): Table {
  return {
    ...CASES_SUMMARY,
    rows: rows.map((r): TableRow => [
      r.currency,
      r.code,
      r.open,
      r.acknowledged,
      r.resolved,
      r.writtenOff,
      r.oldestUnresolvedAt === null ? null : wholeDaysSince(r.oldestUnresolvedAt.getTime(), now),
    ]),
  };
}

/** "<1d" -> "lt_1d", "1-3d" -> "1_3d", ">7d" -> "gt_7d": the bucket as a CSV column name. */
const bucketName = (label: string) => label.replace('<', 'lt_').replace('>', 'gt_').replace('-', '_');

/** The still-open columns: counted by age to the instant the version is written, so not business content. */
export const STILL_OPEN_COLUMNS = AGE_BUCKETS.map((b) => `still_open_${bucketName(b.label)}`);

export const CASE_ACTIVITY: TableSpec = {
  name: 'summary_case_activity',
  title: 'Case activity per currency: opened and resolved (by reason) during the day, still open by age',
  columns: [
    COLUMN.currency,
    { name: 'opened', kind: 'count' },
    { name: 'reopened', kind: 'count' },
    // Labelled by the reason alone (the CSV header says resolved_…): the table stays readable in an e-mail.
    ...SUMMARY_REASONS.map((r) => ({ name: `resolved_${r.replaceAll('-', '_')}`, kind: 'count' as const, label: r.replaceAll('-', ' ') })),
    ...AGE_BUCKETS.map((b, i) => ({ name: STILL_OPEN_COLUMNS[i], kind: 'count' as const, label: `open ${b.label}` })),
  ],
  notes: [
    "opened (reopened among them) and resolved by reason (provider corrected … cleared by recheck): during this business day, from the cases' audit trail (payrecon cases show ID). open <1d … >7d: every case still open or acknowledged when this version was written, by age since it was (re)opened.",
  ],
};

/**
 * Case activity per currency during the business day, then every case still open or
 * acknowledged when the version is written, by age (src/recon/case-figures.ts counts them).
 */
export function caseActivityTable(rows: readonly CaseSummaryRow[]): Table {
  return {
    ...CASE_ACTIVITY,
    rows: rows.map((r): TableRow => [
      r.currency,
      r.opened,
      r.reopened,
      ...SUMMARY_REASONS.map((k) => r.resolved[k]),
      ...AGE_BUCKETS.map((b) => r.stillOpen[b.label]),
    ]),
  };
}

export const UNKNOWN_ORDERS_SUMMARY: TableSpec = {
  name: 'summary_unknown_orders',
  title: 'Orders only the provider knows (UNKNOWN_ORDER)',
  columns: [COLUMN.currency, COLUMN.direction, { name: 'orders', kind: 'count' }, COLUMN.amount],
  notes: [
    'Orders the provider confirmed (notification and fetch) on this day that no order of ours has: each is a row of mismatches.csv, and counts as a mismatch in the headline. amount: paid (payments) or sent (payouts).',
  ],
};

/** UNKNOWN_ORDER findings of the day per currency and direction: how many, and the money they moved. */
export function unknownOrdersSummaryTable(unknown: readonly UnknownOrderRow[]): Table {
  const byKey = new Map<string, { currency: string; direction: string; orders: number; amount: Decimal }>();
  for (const u of unknown) {
    const currency = u.currency ?? '';
    const key = `${currency}\u0000${u.direction}`;
    const t = byKey.get(key) ?? { currency, direction: u.direction, orders: 0, amount: new Decimal(0) };
    t.orders += 1;
    const moved = u.direction === 'payment' ? (u.paid_amount ?? u.amount) : u.amount;
    if (moved !== null) t.amount = t.amount.plus(moved);
    byKey.set(key, t);
  }
  const rows = [...byKey.values()].sort((a, b) =>
    a.currency === b.currency ? (a.direction < b.direction ? -1 : 1) : a.currency < b.currency ? -1 : 1,
  );
  return { ...UNKNOWN_ORDERS_SUMMARY, rows: rows.map((r) => [r.currency, r.direction, r.orders, r.amount.toFixed()]) };
}
