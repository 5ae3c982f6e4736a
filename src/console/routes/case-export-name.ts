import { DateTime } from 'luxon';
import type { Shown } from './case-query.ts';

/**
 * The export's file name: the day and time it was taken (business time zone, to the second) and the
 * filter, so two exports of one day never overwrite each other in a downloads folder and the file says
 * what it holds: payrecon-cases-2026-11-21-1405-07-NGN-FEE+STATUS-by-risk.xlsx.
 */
export function exportFileName(shown: Shown, now: Date, zone: string): string {
  const parts: string[] = [];
  if (shown.state && shown.state !== 'unresolved') parts.push(shown.state);
  if (shown.account) parts.push(shown.account);
  if (shown.currency) parts.push(shown.currency);
  if (shown.code) parts.push(shown.code.split(',').join('+'));
  if (shown.day) parts.push(`day-${shown.day}`);
  if (shown.age) parts.push(`older-${shown.age}`);
  if (shown.ref) parts.push(`ref-${shown.ref}`);
  if (shown.assignee) parts.push(`assignee-${shown.assignee}`);
  if (shown.sort && shown.sort !== 'age') parts.push(`by-${shown.sort}`);
  // Only characters every file system and Content-Disposition take as they are; a long ref is cut.
  const filter = parts
    .join('-')
    .replace(/[^A-Za-z0-9._+-]+/g, '_')
    .slice(0, 80);
  const stamp = DateTime.fromJSDate(now, { zone }).toFormat('yyyy-MM-dd-HHmm-ss');
  return `payrecon-cases-${stamp}${filter ? `-${filter}` : ''}.xlsx`;
}
