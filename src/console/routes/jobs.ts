import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { lastRuns } from '../../db/runs.ts';
import { pendingReportDeliveries } from '../../db/deliveries.ts';
import { schedulesFromConfig } from '../../schedule/schedules.ts';
import { openAlerts } from '../../status/queries.ts';
import { buildStatus, type JobStatus } from '../../status/build.ts';
import { scrub, secretValues } from '../../config/redact.ts';
import { html } from '../html.ts';
import { page, stateBadge } from '../pages/layout.ts';
import { at, count } from '../pages/format.ts';
import { tallyCounts } from '../../recon/run-counts.ts';

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
      openAlerts: await openAlerts(deps.db.knex, now),
      stallAfterMs: deps.config.RUN_STALL_AFTER_SECONDS * 1000,
    });
    const failures = s.jobs.filter((j) => j.lastRun && j.lastRun.status !== 'completed' && j.lastRun.status !== 'running');
    const body = html`<h1>Jobs</h1>
      <p class="muted">Times in ${zone}. Next times come from this console's SCHEDULE_* settings.</p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>job</th>
              <th>schedule</th>
              <th>last run</th>
              <th>outcome</th>
              <th class="num">checked</th>
              <th>counts</th>
              <th>next</th>
            </tr>
          </thead>
          <tbody>
            ${s.jobs.map(
              (j) =>
                html`<tr>
                  <td>${j.job}</td>
                  <td><code>${j.schedule ?? '-'}</code></td>
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
                  <td>${at(j.next, zone)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <h2>Failures</h2>
      ${
        failures.length
          ? html`<ul>
              ${failures.map((j) => html`<li><strong>${j.job}</strong> run ${j.lastRun!.id}: ${j.lastRun!.status}${j.lastRun!.error ? `: ${scrub(j.lastRun!.error, secrets)}` : ''}</li>`)}
            </ul>`
          : html`<p class="muted">No job's last run failed.</p>`
      }
      <h2>Open alerts</h2>
      ${
        s.openAlerts.length
          ? html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>raised</th>
                    <th>kind</th>
                    <th>delivery</th>
                    <th class="num">attempts</th>
                    <th>title</th>
                  </tr>
                </thead>
                <tbody>
                  ${s.openAlerts.map(
                    (a) =>
                      html`<tr>
                        <td>${at(a.createdAt, zone)}</td>
                        <td>${a.kind}</td>
                        <td>${stateBadge(a.status)}</td>
                        <td class="num">${a.attempts}</td>
                        <td class="wrap">${a.title}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
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
