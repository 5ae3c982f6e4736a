import { DateTime } from 'luxon';
import { renderTable } from '../cli-ui/table.ts';
import type { JobStatus, StatusReport } from './build.ts';
import { formatSpan } from '../db/lock-holder.ts';
import { tallyCounts } from '../recon/run-counts.ts';

/** The status as terminal tables, times in the business time zone. */
export function renderStatus(s: StatusReport): string {
  const at = (d: Date | null) => (d ? DateTime.fromJSDate(d, { zone: s.timezone }).toFormat('yyyy-MM-dd HH:mm') : '-');
  const jobs = renderTable(
    ['job', 'schedule', 'last run', 'outcome', 'counts', 'next'],
    s.jobs.map((j) => [j.job, j.schedule ?? '-', at(j.lastRun?.startedAt ?? null), outcome(j, at), counts(j), at(j.next)]),
  );
  const emails = s.pendingEmails.length
    ? renderTable(
        ['report date', 'version', 'attempts', 'last error'],
        s.pendingEmails.map((e) => [e.businessDate, String(e.version), String(e.attempts), e.error ?? '-']),
      )
    : 'none\n';
  const alerts = s.openAlerts.length
    ? renderTable(
        ['raised', 'age', 'kind', 'delivery', 'title'],
        s.openAlerts.map((a) => [at(a.createdAt), a.age, a.kind, a.status, a.title]),
      )
    : 'none\n';
  const alerting = s.alertingFailing.length
    ? `ALERTING FAILING: alerts may not be going out (see payrecon doctor)\n${renderTable(
        ['step', 'last failed', 'job', 'failures', 'last error'],
        s.alertingFailing.map((f) => [f.step, at(f.lastFailedAt), f.lastJob, String(f.failures), f.lastError.slice(0, 80)]),
      )}`
    : 'ok\n';
  return `payrecon status at ${at(s.now)} (${s.timezone})\n${jobs}\npending report e-mails:\n${emails}\nopen alerts (cause not cleared yet):\n${alerts}\nalerting:\n${alerting}`;
}

function outcome(j: JobStatus, at: (d: Date) => string): string {
  const r = j.lastRun;
  if (!r) return 'never run';
  // A dry run wrote no verdicts: its counts are not the books' state.
  const status = r.dryRun ? `${r.status} (dry run)` : r.status;
  const where = r.pid !== null ? ` (pid ${r.pid}${r.host ? ` on ${r.host}` : ''})` : '';
  if (r.processGone) return `${status}, process gone${where}${r.resumes ? '; will resume' : ''}`;
  if (r.stalled) {
    return `${status}, STALLED: no progress for ${formatSpan(r.stalled.forMs)}, since ${at(r.stalled.since)}${where}`;
  }
  return r.error ? `${status}: ${r.error.slice(0, 60)}` : status;
}

/** checked/selected when the job selects orders, then its counters (verdict names without prefix; codes left to the run itself). */
function counts(j: JobStatus): string {
  const r = j.lastRun;
  if (!r) return '-';
  const parts = r.selected > 0 ? [`${r.checked}/${r.selected}`] : [];
  for (const [name, n] of tallyCounts(r.counts)) parts.push(`${name}=${n}`);
  return parts.join(' ') || '-';
}
