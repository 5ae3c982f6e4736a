import type { Session } from '../auth/sessions.ts';
import type { ConsoleDeps } from '../http-kit.ts';
import type { CasePage } from '../../db/case-queue.ts';
import { CASE_STATES, RESOLUTION_REASONS, ageBucket } from '../../recon/cases.ts';
import { MISMATCH_CODES } from '../../domain/verdicts.ts';
import { breachesSla } from '../../recon/case-sla.ts';
import { CURRENCIES } from '../../money/decimal.ts';
import { can } from '../auth/roles.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField, stateBadge } from './layout.ts';
import { amount, at, count } from './format.ts';
import { IMPORT_MAX_ROWS } from '../../cases/import-file.ts';

const AGES = ['', '1h', '1d', '3d', '7d', '30d'];

export interface QueueView {
  deps: ConsoleDeps;
  s: Session;
  now: Date;
  /** The filter as the form shows it. */
  shown: Record<'state' | 'code' | 'currency' | 'day' | 'age' | 'ref' | 'assignee' | 'sort', string>;
  /** Null when the filter was refused (problems say why). */
  found: CasePage | null;
  problems: string[];
  users: string[];
}

/** The query string of the filter as shown, plus paging: every link keeps the filters. */
export function queueQuery(shown: QueueView['shown'], extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...shown, ...extra })) {
    if (v && !(k === 'sort' && v === 'age') && !(k === 'state' && v === 'unresolved')) params.set(k, v);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

const option = (value: string, label: string, current: string) =>
  html`<option value="${value}" ${value === current ? html`selected` : null}>${label}</option>`;

/** "1 case", "2 cases". */
export const plural = (n: number, word: string): string => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

/** The queue: filters, the total in the heading, a page of cases with whole refs, paging, bulk actions and export. */
export function queueBody(v: QueueView): Html {
  const { shown, found, s } = v;
  const zone = v.deps.config.REPORT_TIMEZONE;
  const sla = v.deps.config.CASE_SLA_HOURS;
  const mayWork = can(s.role, 'work-cases');
  const filters = html`<form class="filters" method="get" action="/cases">
    <label
      >Ref <input name="ref" value="${shown.ref}" placeholder="merchant or transaction ref, 6+ characters" size="28" minlength="6"
    /></label>
    <label
      >State
      <select name="state">
        ${[
          option('unresolved', 'open or acknowledged', shown.state),
          ...CASE_STATES.map((x) => option(x, x, shown.state)),
          option('all', 'all', shown.state),
        ]}
      </select></label
    >
    <label
      >Codes
      <select name="code" multiple size="3" title="any of these (none chosen: any code)">
        ${MISMATCH_CODES.map((c) => html`<option value="${c}" ${shown.code.split(',').includes(c) ? html`selected` : null}>${c}</option>`)}
      </select></label
    >
    <label
      >Currency
      <select name="currency">
        ${[option('', 'any', shown.currency), ...CURRENCIES.map((c) => option(c, c, shown.currency))]}
      </select></label
    >
    <label>Business day <input type="date" name="day" value="${shown.day}" /></label>
    <label
      >Open longer than
      <select name="age">
        ${AGES.map((a) => option(a, a || 'any', shown.age))}
      </select></label
    >
    <label
      >Assignee
      <select name="assignee">
        ${[
          option('', 'anyone', shown.assignee),
          option('me', 'my cases', shown.assignee),
          option('nobody', 'nobody', shown.assignee),
          ...v.users.map((u) => option(u, u, shown.assignee)),
        ]}
      </select></label
    >
    <label
      >Sort
      <select name="sort">
        ${[option('age', 'oldest first', shown.sort), option('risk', 'largest amount at risk first', shown.sort)]}
      </select></label
    >
    <button type="submit">Filter</button> <a href="/cases">clear</a> <a href="/cases?assignee=me">my cases</a>
  </form>`;
  if (!found) {
    return html`<h1>Cases</h1>
      ${v.problems.map((p) => html`<p class="error" role="alert">${p}</p>`)} ${filters}`;
  }
  const last = found.first + found.cases.length - 1;
  const paging = html`<p class="paging">
    ${found.cases.length ? html`showing ${count(found.first)}–${count(last)} of ${count(found.total)}` : null}
    ${found.prev ? html` · <a href="/cases${queueQuery(shown)}" rel="first">first</a>` : null}
    ${found.prev ? html` · <a href="/cases${queueQuery(shown, { before: found.prev })}" rel="prev">previous</a>` : null}
    ${found.next ? html` · <a href="/cases${queueQuery(shown, { after: found.next })}" rel="next">next</a>` : null}
    ${found.next ? html` · <a href="/cases${queueQuery(shown, { before: 'end' })}" rel="last">last</a>` : null} ·
    <a href="/cases/export.xlsx${queueQuery(shown)}">export all ${count(found.total)} as a workbook</a>
    ${
      found.total > IMPORT_MAX_ROWS
        ? html`<span class="muted" role="note"
            >(an upload takes at most ${count(IMPORT_MAX_ROWS)} rows: to resolve these through the spreadsheet, narrow the filter and export
            in parts)</span
          >`
        : null
    }
    ${mayWork ? html` · <a href="/cases/import">upload a filled-in workbook</a>` : null}
  </p>`;
  const table = html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          ${mayWork ? html`<th><span class="visually-hidden">select</span></th>` : null}
          <th class="num">case</th>
          <th>state</th>
          <th>code</th>
          <th>currency</th>
          <th>merchant ref</th>
          <th>transaction ref</th>
          <th class="num">local</th>
          <th class="num">provider</th>
          <th class="num">at risk</th>
          <th>occurred</th>
          <th>open for</th>
          <th>SLA</th>
          <th>assignee</th>
          <th class="num">seen</th>
        </tr>
      </thead>
      <tbody>
        ${found.cases.map(
          (c) =>
            html`<tr>
              ${
                mayWork
                  ? html`<td><input type="checkbox" name="sel" value="${c.id}:${c.version}" aria-label="select case ${c.id}" /></td>`
                  : null
              }
              <td class="num"><a href="/cases/${c.id}">${c.id}</a></td>
              <td>${stateBadge(c.state)}${c.resolution ? html` <span class="muted">${c.resolution}</span>` : null}</td>
              <td>${c.code}</td>
              <td>${c.currency ?? ''}</td>
              <td class="ref">${c.merchantRef ?? (c.transactionRef ? '' : c.subject)}</td>
              <td class="ref">${c.transactionRef ?? ''}</td>
              <td class="num">${valueCell(c.finding.local, c.currency)}</td>
              <td class="num">${valueCell(c.finding.provider, c.currency)}</td>
              <td class="num">${c.atRisk === null ? '' : amount(c.atRisk, c.currency ?? '')}</td>
              <td>${at(c.occurredAt, zone)}</td>
              <td>${c.state === 'resolved' ? '' : ageBucket(c.openedAt, v.now)}</td>
              <td>${breachesSla(c, sla, v.now) ? html`<span class="state state-breached">breached</span>` : ''}</td>
              <td>${c.assignee ?? ''}</td>
              <td class="num">${count(c.seenCount)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
  const back = queueQuery(shown).replace(/^\?/, '');
  // Above the table, so it is in reach without scrolling past 100 rows.
  const bulk = html`<fieldset class="form bulk">
    <legend>Work several cases at once</legend>
    <input type="hidden" name="back" value="${back}" />
    <label
      >Action
      <select name="action" required>
        <option value="" selected disabled>choose…</option>
        <option value="acknowledge">acknowledge</option>
        <option value="resolve">resolve</option>
      </select></label
    >
    <label
      >Reason (to resolve)
      <select name="reason">
        <option value="" selected>choose…</option>
        ${RESOLUTION_REASONS.map((r) => html`<option value="${r}">${r}</option>`)}
      </select></label
    >
    <label>Note <input name="note" size="30" /></label>
    <label><input type="checkbox" name="include_assigned" /> include cases assigned to someone else</label>
    <button type="submit">Apply to ticked</button>
    <button type="submit" formaction="/cases/bulk/preview" formnovalidate>Preview all ${count(found.total)} matching this filter</button>
  </fieldset>`;
  return html`<h1>Cases <span class="muted">(${count(found.total)})</span></h1>
    ${filters} ${paging}
    ${
      found.cases.length === 0
        ? html`<p class="muted">No cases match.</p>`
        : mayWork
          ? html`<form method="post" action="/cases/bulk">${csrfField(s)}${bulk}${table}</form>`
          : table
    }
    ${found.cases.length ? paging : null}`;
}

export function valueCell(value: unknown, currency: string | null): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return currency && /^-?\d+(\.\d+)?$/.test(text) ? amount(text, currency) : text;
}
