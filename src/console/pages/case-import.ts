import type { Session } from '../auth/sessions.ts';
import type { ImportPlan } from '../../cases/import-plan.ts';
import type { BulkOutcome } from '../../cases/bulk.ts';
import { RESOLUTION_REASONS } from '../../recon/cases.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField, stateBadge } from './layout.ts';
import { caseLink, orderLink } from './links.ts';
import { plural } from './case-queue.ts';
import { count } from './format.ts';

/** Rows listed in each of the preview's tables: the page stays readable; the confirm applies them all. */
const ROWS_SHOWN = 500;
const more = (n: number) => (n > ROWS_SHOWN ? html`<p class="muted">and ${count(n - ROWS_SHOWN)} more, not listed</p>` : null);

/** The upload form: the CSRF field comes first, the server checks it before reading the file. */
export function importForm(s: Session, problem: string | null): Html {
  return html`<h1>Upload a filled-in workbook</h1>
    ${problem ? html`<p class="error" role="alert">${problem}</p>` : null}
    <p>
      Export the queue (<a href="/cases">Cases</a> → export as a workbook), fill in the <b>resolution reason</b> (one of
      ${RESOLUTION_REASONS.join(', ')}) and <b>resolution note</b> of the cases you resolved, save it, and upload it here. You will see what
      it will do before anything changes. The CSV of <code>payrecon cases list --csv</code>, edited the same way, works too.
    </p>
    <form method="post" action="/cases/import" enctype="multipart/form-data">
      ${csrfField(s)}
      <label>Workbook or CSV <input type="file" name="file" accept=".xlsx,.csv" required /></label>
      <button type="submit">Preview</button>
    </form>`;
}

/** What the upload will do: the cases to resolve, the rows refused and why, and the confirm. */
export function importPreview(s: Session, v: { token: string; fileName: string; plan: ImportPlan }): Html {
  const { plan } = v;
  const n = plan.resolve.length;
  return html`<h1>Preview: ${plural(n, 'case')} to resolve</h1>
    <p>
      From <b>${v.fileName}</b>: ${plural(n, 'case')} to resolve, ${plural(plan.refused.length, 'row')} refused,
      ${plural(plan.blank, 'row')} with no resolution left as they are. Nothing has changed yet.
    </p>
    ${
      n
        ? html`<form method="post" action="/cases/import/${v.token}/confirm">
            ${csrfField(s)}
            <button type="submit">Resolve ${plural(n, 'case')}</button>
            <span class="muted">each only if it has not changed since the export; valid for an hour</span>
          </form>`
        : null
    }
    ${plan.refused.length ? refusedTable(plan.refused) : null}
    ${
      n
        ? html`<h2>To resolve</h2>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th class="num">row</th>
                    <th class="num">case</th>
                    <th>code</th>
                    <th>ref</th>
                    <th>state</th>
                    <th>reason</th>
                    <th>note</th>
                  </tr>
                </thead>
                <tbody>
                  ${plan.resolve.slice(0, ROWS_SHOWN).map(
                    (p) =>
                      html`<tr>
                        <td class="num">${p.row}</td>
                        <td class="num">${caseLink(p.id, p.id)}</td>
                        <td>${p.code}</td>
                        <td>${p.ref ? orderLink(p.ref, p.order ?? undefined) : ''}</td>
                        <td>${stateBadge(p.state)}</td>
                        <td>${p.reason}</td>
                        <td>${p.note}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            ${more(plan.resolve.length)}`
        : html`<p>Nothing to resolve: fill in the resolution reason and note of the cases you worked, then upload again.</p>`
    }
    <p><a href="/cases/import">upload another file</a> · <a href="/cases">back to the queue</a></p>`;
}

function refusedTable(rows: ImportPlan['refused']): Html {
  return html`<h2>Refused</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th class="num">row</th>
            <th class="num">case</th>
            <th>why</th>
          </tr>
        </thead>
        <tbody>
          ${rows.slice(0, ROWS_SHOWN).map(
            (r) =>
              html`<tr>
                <td class="num">${r.row}</td>
                <td class="num">${r.known ? caseLink(r.caseId, r.caseId) : r.caseId}</td>
                <td>${r.why}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${more(rows.length)}`;
}

/** After the confirm: what was resolved, and what was left because it changed since the preview. */
export function importDone(out: BulkOutcome): Html {
  const SHOWN = 200;
  return html`<h1>${plural(out.done.length, 'case')} resolved</h1>
    ${
      out.done.length
        ? html`<p class="wrap">
            ${out.done.slice(0, SHOWN).map((id) => html`${caseLink(id)} `)}
            ${out.done.length > SHOWN ? html`<span class="muted">and ${count(out.done.length - SHOWN)} more</span>` : null}
          </p>`
        : null
    }
    ${
      out.refused.length
        ? html`<p class="error" role="alert">${plural(out.refused.length, 'case')} left as they were:</p>
            <ul>
              ${out.refused.map((r) => html`<li>${caseLink(r.id, `case ${r.id}`)}: ${r.message}</li>`)}
            </ul>`
        : null
    }
    <p><a href="/cases">back to the queue</a></p>`;
}
