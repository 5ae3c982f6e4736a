import { parse } from 'csv-parse/sync';
import { isCurrency } from '../../money/decimal.ts';
import type { Drift } from '../../recon/headline.ts';
import { reportHeadline as headlineOf } from '../../recon/headline.ts';
import { REPORT_VERDICTS, type ReportVerdict } from '../../domain/verdicts.ts';

/**
 * What the e-mail shows of a version written before the summary was one file per table: its
 * summary.csv held every table under one header, with a `section` column. Kept so a version of
 * that format left pending (or resent) is still e-mailed with its tables and headline.
 */
export interface ReportSummary {
  /** The summary's own headline row; null in a summary written before it had one. */
  headline: string | null;
  orders: number;
  verdicts: Record<ReportVerdict, number>;
  /** Currencies whose roll-forward drift is beyond tolerance. */
  drifts: Drift[];
  /** Sections as header + rows, only the columns a reader needs at a glance; empty sections left out. */
  tables: { title: string; header: string[]; rows: string[][] }[];
}

const ORDER_COLUMNS = ['currency', 'direction', 'orders', ...REPORT_VERDICTS, 'gross', 'fees', 'net', 'net_usdt'];
const OPEN_ITEM_COLUMNS = ['currency', 'aging_bucket', 'orders', 'pending', 'mismatch', 'error', 'unchecked'];
const LATE_CHANGE_COLUMNS = ['currency', 'orders'];
const ROLLFORWARD_COLUMNS = [
  'currency',
  'opening_at',
  'opening',
  'explained_movement',
  'expected_closing',
  'closing_at',
  'closing',
  'drift',
  'within_tolerance',
  'note',
];

export function readReportSummary(csv: string | Buffer): ReportSummary {
  const records = parse(csv, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
  const section = (name: string) => records.filter((r) => r.section === name);
  const orders = section('orders');
  const rollforward = section('rollforward');

  const verdicts = Object.fromEntries(REPORT_VERDICTS.map((v) => [v, 0])) as Record<ReportVerdict, number>;
  let total = 0;
  for (const r of orders) {
    total += Number(r.orders) || 0;
    for (const v of REPORT_VERDICTS) verdicts[v] += Number(r[v]) || 0;
  }
  const drifts: Drift[] = rollforward
    .filter((r) => r.within_tolerance === 'false' && isCurrency(r.currency) && r.drift)
    .map((r) => ({ currency: r.currency as Drift['currency'], drift: r.drift }));

  const pick = (title: string, rows: Record<string, string>[], columns: string[]) => {
    // Tolerates a summary.csv with fewer columns (an older report format): show what is there.
    const present = columns.filter((c) => rows.length === 0 || c in rows[0]);
    return { title, header: present, rows: rows.map((r) => present.map((c) => r[c] ?? '')) };
  };
  const tables = [
    pick('Orders', orders, ORDER_COLUMNS),
    pick('Open items of earlier days', section('open_items'), OPEN_ITEM_COLUMNS),
    pick('Late changes to earlier days', section('late_changes'), LATE_CHANGE_COLUMNS),
    pick('Balance roll-forward', rollforward, ROLLFORWARD_COLUMNS),
  ].filter((t) => t.title === 'Orders' || t.rows.length > 0);
  return { headline: section('headline')[0]?.note ?? null, orders: total, verdicts, drifts, tables };
}

/**
 * The summary's own headline; for a summary written before it carried one, the same rules over
 * its counts (src/recon/headline.ts): never "all matched" for an empty, unchecked or pending day.
 */
export function reportHeadline(summary: ReportSummary): string {
  if (summary.headline !== null) return summary.headline;
  return headlineOf({ ...summary, partial: false, openItems: 0, lateChanges: 0 });
}
