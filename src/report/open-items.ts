import type { OpenItemRow } from '../db/reports.ts';

/**
 * Open items: orders of earlier business days (within RECON_LOOKBACK_DAYS) that are, when the
 * report is written, still pending, unchecked, in error or mismatched (open_items.csv, the
 * workbook's sheet: columns in sheet-tables.ts). Their age is in whole business days from the
 * order's day to the report's day (yesterday's order is 1 day old), not read from the wall clock,
 * so a rerun on the same data writes the same file (and no new version).
 * Aging buckets, upper bound included as in receivables aging: 0-1 (1 day), 1-3 (2-3), 3-7 (4-7), 7+.
 */
const DAY_MS = 86_400_000;

/** Aging buckets in business days: 0-1, 1-3, 3-7, 7+ (upper bound included). */
export const AGING_BUCKETS = ['0-1', '1-3', '3-7', '7+'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

export function agingBucket(ageDays: number): AgingBucket {
  if (ageDays <= 1) return '0-1';
  if (ageDays <= 3) return '1-3';
  if (ageDays <= 7) return '3-7';
  return '7+';
}

/** Whole days between two YYYY-MM-DD dates (calendar arithmetic, so DST never adds an hour). */
export function ageInDays(businessDate: string, reportDate: string): number {
  return Math.round((Date.parse(`${reportDate}T00:00:00Z`) - Date.parse(`${businessDate}T00:00:00Z`)) / DAY_MS);
}

/** Counts per currency, aging bucket and verdict: the summary's open_items section. */
export class OpenItemTotals {
  private readonly byKey = new Map<string, { currency: string; bucket: AgingBucket; orders: number; verdicts: Map<string, number> }>();
  count = 0;

  add(r: OpenItemRow, reportDate: string): void {
    const bucket = agingBucket(ageInDays(r.business_date, reportDate));
    const key = `${r.currency}\u0000${bucket}`;
    let t = this.byKey.get(key);
    if (!t) this.byKey.set(key, (t = { currency: r.currency, bucket, orders: 0, verdicts: new Map() }));
    t.orders += 1;
    t.verdicts.set(r.verdict, (t.verdicts.get(r.verdict) ?? 0) + 1);
    this.count += 1;
  }

  /** Rows in currency order (byte order), then bucket order. */
  rows(): { currency: string; bucket: AgingBucket; orders: number; verdicts: ReadonlyMap<string, number> }[] {
    return [...this.byKey.values()].sort((a, b) =>
      a.currency === b.currency ? AGING_BUCKETS.indexOf(a.bucket) - AGING_BUCKETS.indexOf(b.bucket) : a.currency < b.currency ? -1 : 1,
    );
  }
}
