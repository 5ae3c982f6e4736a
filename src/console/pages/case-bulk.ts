import type { Session } from '../auth/sessions.ts';
import type { BulkOutcome, SelectedCase } from '../../cases/bulk.ts';
import type { BulkPreview } from '../../cases/bulk-by-filter.ts';
import { RESOLUTION_REASONS } from '../../recon/cases.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField } from './layout.ts';
import { caseLink } from './links.ts';
import { plural } from './case-queue.ts';
import { count } from './format.ts';

/** Cases named per list: the page stays readable; the counts are of every case. */
const SHOWN = 200;

const backLink = (back: string) => html`<p><a href="/cases${back ? `?${back}` : ''}" rel="back">back to the queue</a></p>`;

function caseList(items: ReadonlyArray<{ id: string; why?: string }>): Html {
  return html`<ul>
      ${items.slice(0, SHOWN).map((r) => html`<li>${caseLink(r.id, `case ${r.id}`)}${r.why ? html`: ${r.why}` : null}</li>`)}
    </ul>
    ${items.length > SHOWN ? html`<p class="muted">and ${count(items.length - SHOWN)} more</p>` : null}`;
}

/** What a bulk action did (or, previewed, would do): counts first, then the cases left and why. */
function outcomeBody(out: BulkOutcome, verb: string, dryRun: boolean): Html {
  const elsewhere = new Set(out.assignedElsewhere.map((a) => a.id));
  const others = out.refused.filter((r) => !elsewhere.has(r.id));
  return html`${
    out.assignedElsewhere.length
      ? html`<p class="error" role="alert">
            ${plural(out.assignedElsewhere.length, 'case')} assigned to someone else ${dryRun ? 'would be' : 'were'} left to them (tick
            “include cases assigned to someone else” to act on them too):
          </p>
          ${caseList(out.assignedElsewhere.map((a) => ({ id: a.id, why: `assigned to ${a.assignee}` })))}`
      : null
  }
  ${
    others.length
      ? html`<p class="error" role="alert">${plural(others.length, 'case')} ${dryRun ? 'would be' : ''} left as they were:</p>
          ${caseList(others.map((r) => ({ id: r.id, why: r.message })))}`
      : null
  }
  ${
    out.done.length
      ? html`<details>
          <summary>the ${plural(out.done.length, 'case')} ${verb}</summary>
          ${caseList(out.done.map((id) => ({ id })))}
        </details>`
      : null
  }`;
}

/** A confirm that found its preview spent or stale: nothing changed, and the way back keeps the filters. */
export function bulkConfirmRefused(message: string, back: string): Html {
  return html`<h1>Nothing changed</h1>
    <p class="error" role="alert">${message}</p>
    ${backLink(back)}`;
}

export function bulkDone(out: BulkOutcome, verb: string, back: string): Html {
  return html`<h1>${plural(out.done.length, 'case')} ${verb}</h1>
    ${backLink(back)} ${outcomeBody(out, verb, false)}`;
}

/** The dry run of "all matching": counts, who would be left, and the one button that does it. */
export function bulkPreviewPage(s: Session, p: BulkPreview, verb: 'acknowledged' | 'resolved', back: string): Html {
  return html`<h1>Preview: ${plural(p.outcome.done.length, 'case')} would be ${verb}</h1>
    <p>${count(p.matched)} match the filter; nothing has changed yet.</p>
    <form method="post" action="/cases/bulk/confirm">
      ${csrfField(s)}
      <input type="hidden" name="token" value="${p.token}" />
      <input type="hidden" name="verb" value="${verb}" />
      <input type="hidden" name="back" value="${back}" />
      <button type="submit" ${p.outcome.done.length ? null : html`disabled`}>
        Confirm: ${verb.replace(/ed$/, '')} ${plural(p.outcome.done.length, 'case')}
      </button>
      <a href="/cases${back ? `?${back}` : ''}" rel="back">cancel, back to the queue</a>
    </form>
    ${outcomeBody(p.outcome, verb, true)}`;
}

/** Nothing changed: the problems, and the same request to fix and send again (the ticks and filters kept). */
export function bulkRefused(
  s: Session,
  problems: readonly string[],
  v: { back: string; selected: readonly SelectedCase[]; body: Record<string, unknown> },
): Html {
  const typed = (k: string) => (typeof v.body[k] === 'string' ? String(v.body[k]).slice(0, 2000) : '');
  const all = v.selected.length === 0;
  return html`<h1>Nothing changed</h1>
    ${problems.map((p) => html`<p class="error" role="alert">${p}</p>`)}
    <form method="post" action="${all ? '/cases/bulk/preview' : '/cases/bulk'}" class="form">
      ${csrfField(s)}
      <input type="hidden" name="back" value="${v.back}" />
      ${v.selected.map((c) => html`<input type="hidden" name="sel" value="${c.id}:${c.version}" />`)}
      <p>${all ? 'Every case matching the filter' : `The ${plural(v.selected.length, 'selected case')}`}, kept:</p>
      <label
        >Action
        <select name="action" required>
          <option value="acknowledge" ${typed('action') === 'acknowledge' ? html`selected` : null}>acknowledge</option>
          <option value="resolve" ${typed('action') === 'resolve' ? html`selected` : null}>resolve</option>
        </select></label
      >
      <label
        >Reason (to resolve)
        <select name="reason">
          <option value="">choose…</option>
          ${RESOLUTION_REASONS.map((r) => html`<option value="${r}" ${typed('reason') === r ? html`selected` : null}>${r}</option>`)}
        </select></label
      >
      <label>Note <input name="note" size="40" value="${typed('note')}" /></label>
      <label
        ><input type="checkbox" name="include_assigned" ${typed('include_assigned') ? html`checked` : null} /> include cases assigned to
        someone else</label
      >
      <button type="submit">${all ? 'Preview again' : 'Apply again'}</button>
    </form>
    ${backLink(v.back)}`;
}
