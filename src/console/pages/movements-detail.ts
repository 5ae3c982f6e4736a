import type { FastifyRequest } from 'fastify';
import type { MovementEvent, MovementWithMatch } from '../../db/movements.ts';
import { html } from '../../html/html.ts';
import { can } from '../auth/roles.ts';
import { amount, at, dataTable } from './format.ts';
import { csrfField, page } from './layout.ts';
import { caseLink } from './links.ts';
import { movementBadge, movementState, statementWords } from './movements.ts';

type Session = NonNullable<FastifyRequest['session']>;

export interface MovementView {
  zone: string;
  movement: MovementWithMatch;
  /** Its audit rows, oldest first: who recorded it, who approved it. */
  events: readonly MovementEvent[];
  /** BALANCE_DRIFT cases its approval just resolved (the approve form's answer). */
  resolvedCases: readonly string[];
  /** What a refused approval said. */
  error: string | null;
}

/** One movement: its figures, its bank statement match, its audit trail, and (another finance user) the approve button. */
export function movementPage(s: Session, v: MovementView): string {
  const m = v.movement;
  const state = movementState(m);
  const approve =
    m.approvedBy === null && can(s.role, 'work-cases')
      ? m.recordedBy === s.userName
        ? html`<p class="notice">You recorded this movement: another finance user approves it (maker-checker).</p>`
        : html`<form class="inline" method="post" action="/movements/${m.id}/approve">
            ${csrfField(s)}<button type="submit">Approve ${m.reference}</button>
          </form>`
      : null;
  const body = html`<h1>Movement ${m.reference} ${movementBadge(m)}</h1>
    <p class="paging"><a href="/movements" rel="up">every movement</a></p>
    ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : null}
    ${
      v.resolvedCases.length
        ? html`<p class="notice">
            Approved. It explains the balance from the next roll-forward on, and resolved
            ${v.resolvedCases.map((id) => html`${caseLink(id, `case ${id}`)} `)}(the drift it was).
          </p>`
        : null
    }
    <dl class="facts">
      <dt>state</dt>
      <dd>${state}${m.approvedBy ? ` by ${m.approvedBy}, ${at(m.approvedAt, v.zone)}` : ''}</dd>
      <dt>kind</dt>
      <dd>${m.kind} (${m.direction === 'in' ? 'into the wallet' : 'out of the wallet'})</dd>
      <dt>amount</dt>
      <dd>${amount(m.amount, m.currency)} ${m.currency}</dd>
      <dt>occurred</dt>
      <dd>
        ${at(m.occurredFrom, v.zone)}${m.occurredTo.getTime() !== m.occurredFrom.getTime() ? ` – ${at(m.occurredTo, v.zone)}` : ''}
        <span class="muted">(${v.zone})</span>
      </dd>
      <dt>USDT leg</dt>
      <dd>${m.usdtAmount ? `${m.usdtAmount} USDT` : 'none'}${m.usdtRate ? ` at ${m.usdtRate} ${m.currency} per USDT` : ''}</dd>
      <dt>bank statement</dt>
      <dd>${statementWords(m)}</dd>
      <dt>recorded</dt>
      <dd>by ${m.recordedBy}, ${at(m.recordedAt, v.zone)}, from ${m.source}</dd>
      <dt>note</dt>
      <dd>${m.note}</dd>
    </dl>
    ${approve}
    <h2>History</h2>
    ${dataTable(
      html`<th>at</th>
        <th>what</th>
        <th>who</th>`,
      v.events.map(
        (e) =>
          html`<tr>
            <td>${at(e.at, v.zone)}</td>
            <td>${e.action}</td>
            <td>${e.actor}</td>
          </tr>`,
      ),
    )}`;
  return page({ title: `Movement ${m.reference}`, session: s, nav: 'movements' }, body);
}
