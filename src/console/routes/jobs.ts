import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { lastRuns } from '../../db/runs.ts';
import { pendingReportDeliveries } from '../../db/deliveries.ts';
import { schedulesFromConfig } from '../../schedule/schedules.ts';
import { buildStatus, type JobStatus } from '../../status/build.ts';
import { scrub, secretValues } from '../../config/redact.ts';
import { html } from '../../html/html.ts';
import { page, stateBadge } from '../pages/layout.ts';
import { at, count, dataTable } from '../pages/format.ts';
import { tallyCounts } from '../../recon/run-counts.ts';
import { cronInWords } from '../../schedule/cron-words.ts';
import { schedulerSeemsAlive } from '../../status/scheduler-alive.ts';
import { mergedOpenAlerts } from '../../db/console-alerts.ts';
import { listReruns, type RerunRow } from '../../db/console-reruns.ts';
import { caseLink } from '../pages/links.ts';

const CASES_SHOWN = 20;

/** The same status `payrecon status` prints, as a page. */
export function registerJobRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const secrets = secretValues(deps.config);
  app.get('/jobs', { config: { access: 'read' } }, async (request, reply) => {
    const now = deps.now();
    const s = buildStatus({
      now,
      timezone: zone,
      schedules: schedulesFromConfig(deps.config),
      lastRuns: await lastRuns(deps.db.knex),
      pendingEmails: await pendingReportDeliveries(deps.db.knex),
      openAlerts: [], // the page shows them merged (mergedOpenAlerts)
      stallAfterMs: deps.config.RUN_STALL_AFTER_SECONDS * 1000,
    });
    const failures = s.jobs.filter((j) => j.lastRun && j.lastRun.status !== 'completed' && j.lastRun.status !== 'running');
    // A day's rerun that failed and was not rerun since: the newest rerun of each day.
    const newestByDay = new Map<string, RerunRow>();
    for (const r of await listReruns(deps.db.knex)) if (!newestByDay.has(r.businessDate)) newestByDay.set(r.businessDate, r);
    const failedReruns = [...newestByDay.values()].filter((r) => r.state === 'failed');
    const alerts = await mergedOpenAlerts(deps.db.knex, now);
    // "Next" is a promise only a running scheduler keeps.
    const alive = schedulerSeemsAlive(s.jobs, zone, now);
    const body = html`<h1>Jobs</h1>
      <p class="muted">
        Times in ${zone}.
        ${
          alive
            ? "Next times come from this console's SCHEDULE_* settings."
            : html`<strong id="no-scheduler">No scheduler seems to be running</strong> (no scheduled job started in its last two intervals):
                nothing runs by itself until <code>payrecon schedule</code> is started.`
        }
      </p>
      ${dataTable(
        html`<th>job</th>
          <th>schedule</th>
          <th>last run</th>
          <th>outcome</th>
          <th class="num">checked</th>
          <th>counts</th>
          <th>next</th>`,
        s.jobs.map(
          (j) =>
            html`<tr>
              <td>${j.job}</td>
              <td title="${j.schedule ?? ''}">${j.schedule ? cronInWords(j.schedule) : '-'}</td>
              <td>${at(j.lastRun?.startedAt, zone)}</td>
              <td>
                ${j.lastRun ? stateBadge(j.lastRun.status) : html`<span class="muted">never run</span>`}
                ${j.lastRun?.dryRun ? html`<span class="muted">dry run</span>` : ''}
                ${j.lastRun?.stalled ? html`<strong>stalled: no progress since ${at(j.lastRun.stalled.since, zone)}</strong>` : ''}
              </td>
              <td class="num">
                ${j.lastRun && j.lastRun.selected > 0 ? `${count(j.lastRun.checked)} / ${count(j.lastRun.selected)}` : ''}
              </td>
              <td class="wrap">${countsText(j)}</td>
              <td>${alive ? at(j.next, zone) : '-'}</td>
            </tr>`,
        ),
      )}
      <h2>Failures</h2>
      ${
        failures.length || failedReruns.length
          ? html`<ul>
              ${failures.map((j) => html`<li><strong>${j.job}</strong> run ${j.lastRun!.id}: ${j.lastRun!.status}${j.lastRun!.error ? `: ${scrub(j.lastRun!.error, secrets)}` : ''}</li>`)}
              ${failedReruns.map(
                (r) =>
                  html`<li>
                    <strong>console rerun</strong> <a href="/reruns/${r.id}">#${r.id}</a> of
                    <a href="/days/${r.businessDate}">${r.businessDate}</a>
                    (asked by ${r.requestedBy}): failed${r.error ? `: ${scrub(r.error, secrets)}` : ''}
                  </li>`,
              )}
            </ul>`
          : html`<p class="muted">No job's last run failed.</p>`
      }
      <h2>Open alerts</h2>
      ${
        alerts.length
          ? dataTable(
              html`<th>raised</th>
                <th>kind</th>
                <th>delivery</th>
                <th class="num">times</th>
                <th>title</th>
                <th>cases</th>`,
              alerts.map(
                (a) =>
                  html`<tr>
                    <td>
                      ${at(a.lastAt, zone)}${a.count > 1 ? html`<br /><span class="muted">first ${at(a.firstAt, zone)}</span>` : null}
                    </td>
                    <td>${a.kind}</td>
                    <td>${stateBadge(a.status)}</td>
                    <td class="num">${count(a.count)}</td>
                    <td class="wrap">${a.title}</td>
                    <td class="wrap">
                      ${a.caseIds.slice(0, CASES_SHOWN).map((id) => html`${caseLink(id)} `)}${a.caseIds.length > CASES_SHOWN ? html`<span class="muted">and ${count(a.caseIds.length - CASES_SHOWN)} more</span>` : null}
                    </td>
                  </tr>`,
              ),
            )
          : html`<p class="muted">No open alerts.</p>`
      }
      <h2>Pending report e-mails</h2>
      ${
        s.pendingEmails.length
          ? html`<ul>
              ${s.pendingEmails.map((e) => html`<li>${e.businessDate} v${e.version}: ${e.attempts} attempts${e.error ? `, last error: ${scrub(e.error, secrets)}` : ''}</li>`)}
            </ul>`
          : html`<p class="muted">None.</p>`
      }`;
    return sendPage(reply, 200, page({ title: 'Jobs', session: request.session, nav: 'jobs' }, body));
  });
}

function countsText(j: JobStatus): string {
  if (!j.lastRun) return '';
  return tallyCounts(j.lastRun.counts)
    .map(([name, n]) => `${name} ${count(n)}`)
    .join(', ');
}
