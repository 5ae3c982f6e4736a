import { html } from '../../html/html.ts';
import type { ReportDay } from '../../db/report-days.ts';
import { can } from '../../domain/roles.ts';
import type { Session } from '../auth/sessions.ts';
import { at, count, dataTable } from './format.ts';
import { csrfField, page } from './layout.ts';
import { accountField, rerunForm } from './rerun-form.ts';

export interface DaysListData {
  session: Session;
  days: readonly ReportDay[];
  zone: string;
  /** Why no rerun can be queued on this installation, or null. */
  cannotRerun: string | null;
  /** The configured accounts' ids when several (a selector and a per-account view of each day); empty with one. */
  accountIds: readonly string[];
  /** The account chosen, '' for all. */
  account: string;
}

/** /days: the business days with report versions, newest first. */
export function daysListPage({ session: s, days, zone, cannotRerun, accountIds, account }: DaysListData): string {
  // With several accounts, each day also links to its per-account view; with one, the cell as before.
  // With an account chosen, a day opens on that account's report.
  const dayHref = (date: string) => (account ? `/days/${date}?account=${encodeURIComponent(account)}` : `/days/${date}`);
  // The rerun's account with several: the one chosen, else a choice among them; none with one.
  const rerunAccount = accountIds.length > 1 ? account || accountIds : undefined;
  const byAccount = (date: string) => (accountIds.length > 1 ? html` <a href="/days/${date}/accounts">by account</a>` : null);
  const body = html`<h1>Business days</h1>
    <p class="muted">
      Days in ${zone} with report versions, newest first. A rerun reconciles the day again and writes a new version when anything changed.
    </p>
    ${
      accountIds.length > 1
        ? html`<form class="filters" method="get" action="/days">
            <label
              >Account
              <select name="account">
                ${[['', 'all accounts'], ...accountIds.map((a) => [a, a])].map(
                  ([v, label]) => html`<option value="${v}" ${v === account ? html`selected` : null}>${label}</option>`,
                )}
              </select></label
            ><button type="submit">Show</button>
          </form>`
        : null
    }
    ${
      can(s.role, 'rerun') && !cannotRerun
        ? html`<form class="filters" method="post" action="/reruns">
            ${csrfField(s)}${accountField(rerunAccount)}<label>Rerun another day <input type="date" name="date" required /></label
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
                  <td><a href="${dayHref(d.businessDate)}">${d.businessDate}</a>${byAccount(d.businessDate)}</td>
                  <td class="wrap">${d.headline ?? html`<span class="muted">(this version has no headline)</span>`}</td>
                  <td class="num">v${d.currentVersion}</td>
                  <td class="num">${count(d.versions)}</td>
                  <td>${at(d.createdAt, zone)}</td>
                  <td>${rerunForm(s, d.businessDate, cannotRerun, 'Rerun', rerunAccount)}</td>
                </tr>`,
            ),
          )
    }`;
  return page({ title: 'Business days', session: s, nav: 'days' }, body);
}

/** /days with an account that is not configured. */
export function badAccountPage(session: Session, message: string): string {
  return page(
    { title: 'Business days', session, nav: 'days' },
    html`<h1>Business days</h1>
      <p class="error" role="alert">${message}</p>`,
  );
}
