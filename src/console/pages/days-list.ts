import { html } from '../../html/html.ts';
import type { ReportDay } from '../../db/report-days.ts';
import { can } from '../auth/roles.ts';
import type { Session } from '../auth/sessions.ts';
import { at, count, dataTable } from './format.ts';
import { csrfField, page } from './layout.ts';
import { rerunForm } from './rerun-form.ts';

export interface DaysListData {
  session: Session;
  days: readonly ReportDay[];
  zone: string;
  /** Why no rerun can be queued on this installation, or null. */
  cannotRerun: string | null;
}

/** /days: the business days with report versions, newest first. */
export function daysListPage({ session: s, days, zone, cannotRerun }: DaysListData): string {
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
        : dataTable(
            html`<th>business day</th>
              <th>headline</th>
              <th class="num">current version</th>
              <th class="num">versions</th>
              <th>written</th>
              <th></th>`,
            days.map(
              (d) =>
                html`<tr>
                  <td><a href="/days/${d.businessDate}">${d.businessDate}</a></td>
                  <td class="wrap">${d.headline ?? html`<span class="muted">(this version has no headline)</span>`}</td>
                  <td class="num">v${d.currentVersion}</td>
                  <td class="num">${count(d.versions)}</td>
                  <td>${at(d.createdAt, zone)}</td>
                  <td>${rerunForm(s, d.businessDate, cannotRerun, 'Rerun')}</td>
                </tr>`,
            ),
          )
    }`;
  return page({ title: 'Business days', session: s, nav: 'days' }, body);
}
