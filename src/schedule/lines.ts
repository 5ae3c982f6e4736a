// The scheduler's own lines: one per start, one per end, one per missed run caught up. Pure text.
import { DateTime } from 'luxon';
import type { CatchUp } from './catch-up.ts';

/** A time as a person in REPORT_TIMEZONE reads it, with its offset. */
export function localTime(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).toFormat('yyyy-MM-dd HH:mm:ss ZZ');
}

export function startedLine(job: string, reason: 'scheduled' | 'catch-up', scheduledFor: Date, zone: string, date?: string): string {
  return `${job} started (${reason} for ${localTime(scheduledFor, zone)}${date ? `, business date ${date}` : ''})`;
}

/** "reconcile finished: completed, checked 30, mismatch 2, in 4.2 s; next 2026-03-10 00:15:00 +05:30" */
export function finishedLine(
  job: string,
  outcome: string,
  counts: Readonly<Record<string, number>>,
  ms: number,
  next: Date | null,
  zone: string,
): string {
  const figures = Object.entries(counts).map(([k, v]) => `${k} ${v}`);
  const took = `in ${(ms / 1000).toFixed(1)} s`;
  const after = next ? `next ${localTime(next, zone)}` : 'no next run scheduled';
  return `${job} finished: ${[outcome, ...figures, took].join(', ')}; ${after}`;
}

export function catchUpLine(c: CatchUp, zone: string): string {
  return `catch-up: ${c.job}${c.date ? ` for ${c.date}` : ''} missed since ${localTime(c.scheduledFor, zone)}; running it now`;
}
