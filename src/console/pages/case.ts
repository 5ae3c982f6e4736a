import type { FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import type { CaseDetail } from '../../cases/work.ts';
import type { OrderInVersion } from '../../db/order-lookup.ts';
import { orderLink } from './links.ts';
import { RESOLUTION_REASONS, ageBucket } from '../../recon/cases.ts';
import type { ConsoleDeps } from '../http-kit.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField, page, stateBadge } from './layout.ts';
import { amount, at } from './format.ts';
import { plural, valueCell } from './case-queue.ts';
import { checksTable } from './checks-table.ts';
import { can } from '../auth/roles.ts';
import { caseMovementsLink } from './movements-links.ts';

/** What the person typed into the case's forms, kept across a refusal. */
export interface Typed {
  reason?: string;
  note?: string;
  form?: string;
}

/** A case with the report versions that recorded its order (the page links them). */
export type CaseView = CaseDetail & { versions: OrderInVersion[]; next?: string | null };

type Session = NonNullable<FastifyRequest['session']>;

/** What the page shows beside the case: a refusal, what was typed, whom it may be given to, the queue it came from. */
export interface CasePageOptions {
  error: string | null;
  typed: Typed;
  users: readonly string[];
  /** The queue's query string (without "?") the person came from: "the queue" and the forms lead back to it. */
  back: string;
}

export function noSuchCase(s: Session): string {
  return page({ title: 'Not found', session: s, nav: 'cases' }, html`<h1>No such case</h1>`);
}

/** One case: both sides as the latest check saw them, the actions the role may take, its checks and history. */
export function casePage(deps: ConsoleDeps, s: Session, c: CaseView, opts: CasePageOptions): string {
  const zone = deps.config.REPORT_TIMEZONE;
  const keep = opts.back ? `?back=${encodeURIComponent(opts.back)}` : '';
  const body = html`<h1>
      Case ${c.id}: ${c.code} ${stateBadge(c.state)}${c.resolution ? html` <span class="muted">${c.resolution}</span>` : null}
    </h1>
    <p class="paging">
      <a href="/cases${opts.back ? `?${opts.back}` : ''}" rel="up">back to the queue</a>
      ${c.next ? html` · <a href="/cases/${c.next}${keep}" rel="next">next case</a> <span class="muted">(the queue's next, oldest first)</span>` : null}
    </p>
    ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : null} ${facts(deps, c)} ${sideBySide(c, zone)}
    ${can(s.role, 'work-cases') ? caseForms(s, c, opts) : null}
    <h2>Checks of the order</h2>
    ${c.checks.length ? checksTable(c.checks, zone) : html`<p class="muted">No checks recorded for an order.</p>`}
    <h2>History</h2>
    ${history(c, zone)}`;
  return page({ title: `Case ${c.id}`, session: s, nav: 'cases' }, body);
}

/** What is at stake, what the case is about, when, and who has it. */
function facts(deps: ConsoleDeps, c: CaseView): Html {
  const zone = deps.config.REPORT_TIMEZONE;
  const cur = c.currency ?? '';
  const o = c.order;
  // The business day the case is about, as `cases list --day` selects it.
  const caseDay = DateTime.fromJSDate(c.occurredAt, { zone }).toISODate()!;
  return html`<dl class="facts">
    ${
      c.difference !== null
        ? html`<dt>at stake</dt>
            <dd>
              <strong>${amount(c.atRisk, cur)} ${cur}</strong>${c.atRiskUsdt !== null ? html` (${c.atRiskUsdt} USDT)` : null}; provider −
              merchant ${amount(c.difference, cur)}
            </dd>`
        : null
    }
    <dt>about</dt>
    <dd>
      ${
        o
          ? html`${o.direction} ${orderLink(o.merchantRef, o)} (transaction ${o.transactionRef}), ${o.currency} ${o.method}`
          : c.transactionRef
            ? orderLink(c.transactionRef)
            : c.subject
      }
    </dd>
    <dt>business day</dt>
    <dd><a href="/days/${caseDay}">${caseDay}</a></dd>
    <dt>report versions</dt>
    <dd>
      ${c.versions.length ? c.versions.map((v) => html`<a href="/days/${v.businessDate}#v${v.version}">${v.businessDate} v${v.version}</a> `) : '-'}
    </dd>
    <dt>finding</dt>
    <dd>${c.finding.note ?? ''}</dd>
    ${caseMovementsLink(c)}
    <dt>occurred</dt>
    <dd>${at(c.occurredAt, zone)}</dd>
    <dt>opened</dt>
    <dd>${at(c.openedAt, zone)}${c.state !== 'resolved' ? ` (${ageBucket(c.openedAt, deps.now())})` : ''}</dd>
    <dt>assignee</dt>
    <dd>${c.assignee ?? 'nobody'}</dd>
    <dt>seen</dt>
    <dd>${plural(c.seenCount, 'check')}, last ${at(c.lastSeenAt, zone)}</dd>
  </dl>`;
}

/** Both sides as the latest check saw them (the order may have been updated since: a resolved pending order), the line that differs marked. */
function sideBySide(c: CaseView, zone: string): Html {
  const cur = c.currency ?? '';
  const o = c.order;
  const rows: Array<[string, unknown, unknown]> = [];
  const latest = c.checks[c.checks.length - 1];
  if (latest) {
    rows.push(['status', latest.localStatus, latest.providerStatus]);
    rows.push(['amount', amount(latest.localAmount, cur), amount(latest.providerAmount, cur)]);
    if (latest.direction === 'payment')
      rows.push(['paid amount', amount(latest.localPaidAmount, cur), amount(latest.providerPaidAmount, cur)]);
    rows.push(['fee', amount(latest.localFee, cur), amount(latest.providerFee, cur)]);
    if (latest.direction === 'payout') rows.push(['UTR', latest.localUtr, latest.providerUtr]);
  } else if (o) {
    rows.push(['status', o.status, null], ['amount', amount(o.amount, cur), null], ['fee', amount(o.fee, cur), null]);
  }
  if (!rows.length)
    return html`<h2>Local against provider</h2>
      <div class="table-wrap">
        <table>
          <tbody>
            <tr>
              <td>local</td>
              <td class="num">${valueCell(c.finding.local, c.currency)}</td>
            </tr>
            <tr>
              <td>provider</td>
              <td class="num">${valueCell(c.finding.provider, c.currency)}</td>
            </tr>
          </tbody>
        </table>
      </div>`;
  return html`<h2>Local against provider <span class="muted">(as the latest check saw them, ${at(latest?.checkedAt, zone)})</span></h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th></th>
            <th class="num">merchant's record</th>
            <th class="num">provider (latest check)</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            ([k, l, p]) =>
              // The line that differs is the one to look at.
              html`<tr class="${String(l ?? '') !== String(p ?? '') ? 'differs' : ''}">
                <td>${k}</td>
                <td class="num">${String(l ?? '')}</td>
                <td class="num">${String(p ?? '')}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

/** The forms of a role that works cases: acknowledge and resolve while unresolved, assign and comment always. */
function caseForms(s: Session, c: CaseView, opts: CasePageOptions): Html {
  const typed = opts.typed;
  const noteOf = (form: string) => (typed.form === form ? (typed.note ?? '') : '');
  const hidden = (form: string) =>
    html`${csrfField(s)}<input type="hidden" name="version" value="${c.version}" /><input type="hidden" name="form" value="${form}" />${
        opts.back ? html`<input type="hidden" name="back" value="${opts.back}" />` : null
      }`;
  const chosenReason = typed.form === 'resolve' ? (typed.reason ?? '') : '';
  const transitions: Html | null =
    c.state !== 'resolved'
      ? html`<div class="grid2">
          ${
            c.state === 'open'
              ? html`<form class="form" method="post" action="/cases/${c.id}/acknowledge">
                  ${hidden('acknowledge')} <strong>Acknowledge</strong
                  ><label>Note <textarea name="note" rows="2">${noteOf('acknowledge')}</textarea></label
                  ><button type="submit">Acknowledge</button>
                </form>`
              : html`<div></div>`
          }
          <form class="form" method="post" action="/cases/${c.id}/resolve">
            ${hidden('resolve')}
            <strong>Resolve</strong>
            <label
              >Reason
              <select name="reason" required>
                <option value="" ${chosenReason === '' ? html`selected` : null} disabled>choose a reason…</option>
                ${RESOLUTION_REASONS.map((r) => html`<option value="${r}" ${r === chosenReason ? html`selected` : null}>${r}</option>`)}
              </select></label
            >
            <label>Note <textarea name="note" rows="3" required>${noteOf('resolve')}</textarea></label>
            <button type="submit">Resolve</button>
          </form>
        </div>`
      : null;
  return html`${transitions}
    <div class="grid2">
      <form class="form" method="post" action="/cases/${c.id}/assign">
        ${hidden('assign')}
        <strong>Assignee</strong>
        <label
          >Give to
          <select name="assignee">
            <option value="" ${c.assignee === null ? html`selected` : null}>nobody</option>
            ${opts.users.map((u) => html`<option value="${u}" ${u === c.assignee ? html`selected` : null}>${u}</option>`)}
          </select></label
        >
        <button type="submit">Assign</button>
      </form>
      <form class="form" method="post" action="/cases/${c.id}/comment">
        ${hidden('comment')}
        <strong>Comment</strong> <span class="muted">(the state stays ${c.state})</span>
        <label>Note <textarea name="note" rows="2" required>${noteOf('comment')}</textarea></label>
        <button type="submit">Add comment</button>
      </form>
    </div>`;
}

function history(c: CaseView, zone: string): Html {
  return html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          <th>at</th>
          <th>what</th>
          <th>from</th>
          <th>to</th>
          <th>reason</th>
          <th>who</th>
          <th>note</th>
        </tr>
      </thead>
      <tbody>
        ${c.history.map(
          (e) =>
            html`<tr>
              <td>${at(e.at, zone)}</td>
              <td>${e.kind}</td>
              <td>${e.fromState ?? ''}</td>
              <td>${e.toState}</td>
              <td>${e.reason ?? ''}</td>
              <td>${e.actor}</td>
              <td class="wrap">${e.note}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
