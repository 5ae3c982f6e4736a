import type { Session } from '../auth/sessions.ts';
import type { ConsoleDeps } from '../http-kit.ts';
import type { CasePage } from '../../db/case-queue.ts';
import { CASE_STATES, RESOLUTION_REASONS, ageBucket } from '../../recon/cases.ts';
import { MISMATCH_CODES } from '../../domain/verdicts.ts';
import { breachesSla } from '../../recon/case-sla.ts';
import { CURRENCIES, Decimal } from '../../money/decimal.ts';
import { can } from '../../domain/roles.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField, stateBadge } from './layout.ts';
import { amount, count } from './format.ts';
import { IMPORT_MAX_ROWS } from '../../cases/import-file.ts';

const AGES = ['', '1h', '1d', '3d', '7d', '30d'];

export interface QueueView {
  deps: ConsoleDeps;
  s: Session;
  now: Date;
  /** The filter as the form shows it. */
  shown: Record<'state' | 'code' | 'currency' | 'account' | 'day' | 'age' | 'ref' | 'assignee' | 'sort', string>;
  /** Null when the filter was refused (problems say why). */
  found: CasePage | null;
  problems: string[];
  users: string[];
  /** Where in the queue this page is (after, before or page), so a case opened from it leads back here. */
  at?: Record<string, string>;
  /** The configured accounts' ids when several (a selector shows); empty with one. */
  accountIds?: readonly string[];
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
    ${
      v.accountIds && v.accountIds.length > 1
        ? html`<label
            >Account
            <select name="account">
              ${[option('', 'all accounts', shown.account), ...v.accountIds.map((a) => option(a, a, shown.account))]}
            </select></label
          >`
        : null
    }
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
    ${found.next ? html` · <a href="/cases${queueQuery(shown, { before: 'end' })}" rel="last">last</a>` : null}
    ${
      found.total > 100
        ? html` ·
            <form class="inline" method="get" action="/cases">
              ${Object.entries(shown)
                .filter(([k, val]) => val && !(k === 'sort' && val === 'age') && !(k === 'state' && val === 'unresolved'))
                .map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}" />`)}
              <label>page <input name="page" size="4" inputmode="numeric" aria-label="go to page" /></label>
              <span class="muted">of ${count(Math.ceil(found.total / 100))}</span> <button type="submit" class="secondary">go</button>
            </form>`
        : null
    }
    ·
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
  // Fits 1,280 px with the money in view: ref, code, currency, the signed difference, what is at stake
  // (in USDT, the sort's order), age, SLA and assignee. The rest (the other ref, the values side by
  // side, when it occurred, sightings) is on the case page.
  // The case page's "back to the queue" returns to this filter, sort and page.
  const here = queueQuery(shown, v.at ?? {}).replace(/^\?/, '');
  const caseBack = here ? `?back=${encodeURIComponent(here)}` : '';
  const caseCell = (c: CasePage['cases'][number]) =>
    html`<a href="/cases/${c.id}${caseBack}">${c.id}</a>${c.state === 'open' ? null : html` ${stateBadge(c.state)}`}`;
  const table = html`<div class="table-wrap">
    <table class="queue">
      <thead>
        <tr>
          ${mayWork ? html`<th><span class="visually-hidden">select</span></th>` : null}
          <th class="num">case</th>
          <th>ref</th>
          <th>code</th>
          <th>cur</th>
          <th class="num">difference</th>
          <th class="num">at risk (USDT)</th>
          <th>open for</th>
          <th>SLA</th>
          <th>assignee</th>
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
              <td class="num">${caseCell(c)}</td>
              <td class="ref ref-cut" title="${c.transactionRef ? `transactionRef ${c.transactionRef}` : ''}">
                ${c.merchantRef ?? (c.transactionRef ? '' : c.subject)}
              </td>
              <td>${c.code}</td>
              <td>${c.currency ?? ''}</td>
              <td class="num">${c.difference === null ? '' : signed(c.difference, c.currency ?? '')}</td>
              <td class="num">
                ${c.atRiskUsdt === null ? (c.atRisk === null ? '' : html`<span class="muted" title="no USDT rate yet">${amount(c.atRisk, c.currency ?? '')} ${c.currency}</span>`) : usdt(c.atRiskUsdt)}
              </td>
              <td>${c.state === 'resolved' ? '' : ageBucket(c.openedAt, v.now)}</td>
              <td>${breachesSla(c, sla, v.now) ? html`<span class="state state-breached">breached</span>` : ''}</td>
              <td>${c.assignee ?? ''}</td>
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
    <button type="submit">Apply to selected</button>
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

/** An export refused for its filter: what to fix, nothing downloaded. */
export function exportRefused(problems: readonly string[]): Html {
  return html`<h1>Nothing exported</h1>
    ${problems.map((p) => html`<p class="error" role="alert">${p}</p>`)}`;
}

/** A signed difference: "+1,600.00" or "−100,000.00", so its direction reads at a glance. */
function signed(value: string, currency: string): string {
  const text = amount(value, currency);
  return value.startsWith('-') ? `−${text.replace(/^-/, '')}` : /^0*(\.0*)?$/.test(value) ? text : `+${text}`;
}

/** A USDT value for reading (2 decimals, half-up, by decimal arithmetic); the export carries all 6. */
function usdt(value: string): string {
  return count(new Decimal(value).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2));
}

export function valueCell(value: unknown, currency: string | null): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return currency && /^-?\d+(\.\d+)?$/.test(text) ? amount(text, currency) : text;
}
