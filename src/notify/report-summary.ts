import { parse } from 'csv-parse/sync';
import { isCurrency } from '../money/decimal.ts';
import { headline, type Counts, type Drift } from '../recon/summary.ts';
import { VERDICTS } from '../recon/types.ts';

/** What the e-mail shows of a version's summary.csv (see src/report/summary.ts for its columns). */
export interface ReportSummary {
  counts: Counts;
  /** Currencies whose roll-forward drift is beyond tolerance. */
  drifts: Drift[];
  /** The "orders" and "rollforward" sections, each as header + rows, only the columns a reader needs at a glance. */
  tables: { title: string; header: string[]; rows: string[][] }[];
}

const ORDER_COLUMNS = ['currency', 'direction', 'orders', ...VERDICTS, 'gross', 'fees', 'net', 'net_usdt'];
const ROLLFORWARD_COLUMNS = [
  'currency',
  'opening',
  'explained_movement',
  'expected_closing',
  'closing',
  'drift',
  'within_tolerance',
  'note',
];

export function readReportSummary(csv: string | Buffer): ReportSummary {
  const records = parse(csv, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
  const orders = records.filter((r) => r.section === 'orders');
  const rollforward = records.filter((r) => r.section === 'rollforward');

  const verdicts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Counts['verdicts'];
  let total = 0;
  for (const r of orders) {
    total += Number(r.orders) || 0;
    for (const v of VERDICTS) verdicts[v] += Number(r[v]) || 0;
  }
  const drifts: Drift[] = rollforward
    .filter((r) => r.within_tolerance === 'false' && isCurrency(r.currency) && r.drift)
    .map((r) => ({ currency: r.currency as Drift['currency'], drift: r.drift }));

  const pick = (rows: Record<string, string>[], columns: string[]) => {
    // Tolerates a summary.csv with fewer columns (an older report format): show what is there.
    const present = columns.filter((c) => rows.length === 0 || c in rows[0]);
    return { header: present, rows: rows.map((r) => present.map((c) => r[c] ?? '')) };
  };
  return {
    counts: { total, verdicts, codes: {} },
    drifts,
    tables: [
      { title: 'Orders', ...pick(orders, ORDER_COLUMNS) },
      { title: 'Balance roll-forward', ...pick(rollforward, ROLLFORWARD_COLUMNS) },
    ],
  };
}

/** "all matched" when nothing needs a person, else recon's headline ("3 mismatches, NGN drift 1,250.00"). */
export function reportHeadline(summary: Pick<ReportSummary, 'counts' | 'drifts'>): string {
  const { counts, drifts } = summary;
  if (counts.verdicts.mismatch === 0 && counts.verdicts.error === 0 && drifts.length === 0) return 'all matched';
  return headline(counts, drifts);
}
