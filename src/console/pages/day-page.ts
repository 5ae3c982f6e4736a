import { html, type Html } from '../../html/html.ts';
import type { ReportVersionFiles } from '../../db/report-days.ts';
import type { DayMismatch } from '../../db/day-mismatches.ts';
import { removedVersionSentence } from '../../report/removed-version.ts';
import type { Session } from '../auth/sessions.ts';
import { versionFiles, type CsvPreview } from '../report-files.ts';
import { at, count, csvTable, dataTable } from './format.ts';
import { page, stateBadge } from './layout.ts';
import { caseLink, orderHref } from './links.ts';
import { rerunForm } from './rerun-form.ts';
import { dayMovementsLink } from './movements-links.ts';

/** One report file shown on the day's page: its section title, name and first rows. */
export interface DaySection {
  title: string;
  fileName: string;
  preview: CsvPreview;
}

export interface DayPageData {
  session: Session;
  date: string;
  zone: string;
  cannotRerun: string | null;
  /** Newest first; the first is the current version. */
  versions: ReportVersionFiles[];
  /** The current version's sections, in the order shown. */
  sections: DaySection[];
  /** The current version's mismatches (the first few and how many in all), null when there is no version. */
  mismatches: { total: number; rows: DayMismatch[] } | null;
  /** The account whose reports these are, with several accounts configured; undefined with one. */
  account?: string;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** /days/:date: the day's headline, mismatches, versions and the current version's tables. */
export function dayPage({ session: s, date, zone, cannotRerun, versions, sections, mismatches, account }: DayPageData): string {
  const current = versions[0];
  const headline = current ? ((current.manifest.headline as string | undefined) ?? null) : null;
  const of = account === undefined ? null : html`, account ${account}`;
  const body = html`<h1>Business day ${date}${of} ${rerunForm(s, date, cannotRerun, undefined, account)}</h1>
    ${
      current
        ? html`<div class="headline">
            ${headline ?? html`<span class="muted">This version was written before reports carried a headline.</span>`}
          </div>`
        : html`<p>No report version for this day yet.</p>`
    }
    ${dayMovementsLink(date)} ${mismatches && current ? mismatchesSection(date, current.version, mismatches) : null}
    ${
      versions.length
        ? html`<h2>Report versions</h2>
            ${versionsTable(versions, zone)}`
        : null
    }
    ${sections.map(
      (section) =>
        html`<h2>${section.title} <span class="muted">(${section.fileName}, v${current!.version})</span></h2>
          ${csvTable(section.preview)}`,
    )}`;
  return page({ title: `Business day ${date}${account === undefined ? '' : `, account ${account}`}`, session: s, nav: 'days' }, body);
}

/** A /days/:date whose date is not a business day. */
export function badDatePage(session: Session, message: string): string {
  return page(
    { title: 'Bad date', session, nav: 'days' },
    html`<h1>Bad date</h1>
      <p class="error">${message}</p>`,
  );
}

function mismatchesSection(date: string, version: number, m: { total: number; rows: DayMismatch[] }): Html {
  if (m.total === 0)
    return html`<h2>Mismatches</h2>
      <p class="muted">v${version} recorded no mismatch or error.</p>`;
  return html`<h2>
      Mismatches
      <span class="muted">(${count(m.total)} in v${version}${m.total > m.rows.length ? `, the first ${m.rows.length}` : ''})</span>
      <a href="/cases?day=${date}">this day's cases</a>
    </h2>
    ${dataTable(
      html`<th>order</th>
        <th>direction</th>
        <th>verdict</th>
        <th>codes</th>
        <th>cases</th>`,
      m.rows.map(
        (r) =>
          html`<tr>
            <td><a href="${orderHref(r.direction, r.orderId)}">${r.merchantRef ?? `${r.direction} ${r.orderId}`}</a></td>
            <td>${r.direction}</td>
            <td>${stateBadge(r.verdict)}</td>
            <td>${r.codes.join(' ')}</td>
            <td>${r.caseIds.map((id) => html`${caseLink(id)} `)}</td>
          </tr>`,
      ),
    )}`;
}

function versionsTable(versions: ReportVersionFiles[], zone: string): Html {
  return dataTable(
    html`<th>version</th>
      <th>written</th>
      <th>e-mail</th>
      <th>downloads</th>`,
    versions.map(
      (v, i) =>
        html`<tr>
          <td id="v${v.version}">v${v.version}${i === 0 ? html` <span class="state state-completed">current</span>` : null}</td>
          <td>${at(v.createdAt, zone)}</td>
          <td>${v.emailStatus}</td>
          <td class="wrap">${downloads(v)}</td>
        </tr>`,
    ),
  );
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
