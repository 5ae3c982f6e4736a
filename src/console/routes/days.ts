import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { listReportDays, versionsOfDay, type ReportVersionFiles } from '../../db/report-days.ts';
import { businessDay } from '../../report/date.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField, page, stateBadge } from '../pages/layout.ts';
import { caseLink, orderHref } from '../pages/links.ts';
import { versionMismatches, type DayMismatch } from '../../db/day-mismatches.ts';
import { at, count } from '../pages/format.ts';
import { csvTable } from '../pages/format.ts';
import { previewCsv, versionFiles } from '../report-files.ts';
import { can } from '../auth/roles.ts';
import { rerunRefusal } from '../can-do.ts';
import type { Session } from '../auth/sessions.ts';
import { removedVersionSentence } from '../../report/removed-version.ts';
import { dayMovementsLink } from '../pages/movements-links.ts';

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The report's sections shown on a day's page, in order, where the version has the file. */
const SECTIONS: ReadonlyArray<{ title: string; match: (name: string) => boolean }> = [
  // summary.csv: a version written before the summary was one file per table.
  { title: 'Orders by currency and direction', match: (n) => n === 'summary_orders.csv' || n === 'summary.csv' },
  { title: 'Roll-forward', match: (n) => n === 'summary_rollforward.csv' },
  { title: 'Timing items of the roll-forward', match: (n) => n === 'timing_items.csv' },
  { title: 'Open items of earlier days', match: (n) => n === 'open_items.csv' },
  { title: 'Late changes to earlier days', match: (n) => n === 'late_changes.csv' },
  { title: 'Balances', match: (n) => n === 'balances.csv' },
];

function rerunForm(session: Session, date: string, refusal: string | null, label = 'Rerun this day'): Html | null {
  if (!can(session.role, 'rerun')) return null;
  // Said here rather than queued to fail in the worker.
  if (refusal) return html`<span class="muted rerun-refused" title="${refusal}">(rerun unavailable: ${refusal})</span>`;
  return html`<form class="inline" method="post" action="/reruns">
    ${csrfField(session)}<input type="hidden" name="date" value="${date}" /><button type="submit">${label}</button>
  </form>`;
}

export function registerDayRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const cannotRerun = rerunRefusal(deps.config);

  app.get('/days', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const days = await listReportDays(deps.db.knex);
    const body = html`<h1>Business days</h1>
      <p class="muted">
        Days in ${zone} with report versions, newest first. A rerun reconciles the day again and writes a new version when anything changed.
      </p>
      ${
        can(s.role, 'rerun') && !cannotRerun
          ? html`<form class="filters" method="post" action="/reruns">
              ${csrfField(s)}<label>Rerun another day <input type="date" name="date" required /></label
              ><button type="submit">Queue rerun</button>
            </form>`
          : null
      }
      ${
        days.length === 0
          ? html`<p>No reports yet. Run <code>payrecon report</code>, or queue a rerun of a day.</p>`
          : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>business day</th>
                    <th>headline</th>
                    <th class="num">current version</th>
                    <th class="num">versions</th>
                    <th>written</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${days.map(
                    (d) =>
                      html`<tr>
                        <td><a href="/days/${d.businessDate}">${d.businessDate}</a></td>
                        <td class="wrap">${d.headline ?? html`<span class="muted">(this version has no headline)</span>`}</td>
                        <td class="num">v${d.currentVersion}</td>
                        <td class="num">${count(d.versions)}</td>
                        <td>${at(d.createdAt, zone)}</td>
                        <td>${rerunForm(s, d.businessDate, cannotRerun, 'Rerun')}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }`;
    return sendPage(reply, 200, page({ title: 'Business days', session: s, nav: 'days' }, body));
  });

  app.get('/days/:date', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const raw = (request.params as { date: string }).date;
    let date: string;
    try {
      date = businessDay(raw, zone).date;
    } catch (err) {
      return sendPage(
        reply,
        400,
        page(
          { title: 'Bad date', session: s, nav: 'days' },
          html`<h1>Bad date</h1>
            <p class="error">${(err as Error).message}</p>`,
        ),
      );
    }
    const versions = await versionsOfDay(deps.db.knex, date);
    const current = versions[0];
    const sections: Html[] = [];
    if (current) {
      const files = versionFiles(current);
      for (const section of SECTIONS) {
        const file = files.find((f) => section.match(f.name));
        if (file)
          sections.push(
            html`<h2>${section.title} <span class="muted">(${file.name}, v${current.version})</span></h2>
              ${csvTable(await previewCsv(file.path))}`,
          );
      }
    }
    const headline = current ? ((current.manifest.headline as string | undefined) ?? null) : null;
    const mismatches = current ? await versionMismatches(deps.db.knex, current.id, MISMATCHES_SHOWN) : null;
    const body = html`<h1>Business day ${date} ${rerunForm(s, date, cannotRerun)}</h1>
      ${
        current
          ? html`<div class="headline">
              ${headline ?? html`<span class="muted">This version was written before reports carried a headline.</span>`}
            </div>`
          : html`<p>No report version for this day yet.</p>`
      }
      ${dayMovementsLink(date)} ${mismatches ? mismatchesSection(date, current!.version, mismatches) : null}
      ${
        versions.length
          ? html`<h2>Report versions</h2>
              ${versionsTable(versions, zone)}`
          : null
      }
      ${sections}`;
    return sendPage(reply, 200, page({ title: `Business day ${date}`, session: s, nav: 'days' }, body));
  });
}

const MISMATCHES_SHOWN = 200;

function mismatchesSection(date: string, version: number, m: { total: number; rows: DayMismatch[] }): Html {
  if (m.total === 0)
    return html`<h2>Mismatches</h2>
      <p class="muted">v${version} recorded no mismatch or error.</p>`;
  return html`<h2>
      Mismatches
      <span class="muted">(${count(m.total)} in v${version}${m.total > m.rows.length ? `, the first ${m.rows.length}` : ''})</span>
      <a href="/cases?day=${date}">this day's cases</a>
    </h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>order</th>
            <th>direction</th>
            <th>verdict</th>
            <th>codes</th>
            <th>cases</th>
          </tr>
        </thead>
        <tbody>
          ${m.rows.map(
            (r) =>
              html`<tr>
                <td><a href="${orderHref(r.direction, r.orderId)}">${r.merchantRef ?? `${r.direction} ${r.orderId}`}</a></td>
                <td>${r.direction}</td>
                <td>${stateBadge(r.verdict)}</td>
                <td>${r.codes.join(' ')}</td>
                <td>${r.caseIds.map((id) => html`${caseLink(id)} `)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

function versionsTable(versions: ReportVersionFiles[], zone: string): Html {
  return html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          <th>version</th>
          <th>written</th>
          <th>e-mail</th>
          <th>downloads</th>
        </tr>
      </thead>
      <tbody>
        ${versions.map(
          (v, i) =>
            html`<tr>
              <td id="v${v.version}">v${v.version}${i === 0 ? html` <span class="state state-completed">current</span>` : null}</td>
              <td>${at(v.createdAt, zone)}</td>
              <td>${v.emailStatus}</td>
              <td class="wrap">${downloads(v)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** A version's files to download, or, when the retention removed them, the sentence saying so. */
function downloads(v: ReportVersionFiles): Html | Html[] {
  const removed = removedVersionSentence(v);
  if (removed !== null) return html`<span class="muted removed-version">${capitalised(removed)}.</span>`;
  return versionFiles(v).map((f) =>
    // report.html opens in the browser; the others download.
    f.name.endsWith('.html')
      ? html`<a href="/reports/${v.id}/files/${f.name}" target="_blank" rel="noopener">${f.name}</a> `
      : html`<a href="/reports/${v.id}/files/${f.name}" download>${f.name}</a> `,
  );
}
