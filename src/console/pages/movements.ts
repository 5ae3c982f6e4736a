import type { FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import type { MovementWithMatch } from '../../db/movements.ts';
import type { StoredStatementLine } from '../../db/statements.ts';
import type { StoredCase } from '../../db/cases.ts';
import { MOVEMENT_DIRECTIONS, MOVEMENT_KINDS, isMaker } from '../../domain/movements.ts';
import { CURRENCIES, Decimal } from '../../money/decimal.ts';
import { html, type Html } from '../../html/html.ts';
import type { MovementFields } from '../../movements/record.ts';
import { can } from '../../domain/roles.ts';
import { amount, at, count, dataTable } from './format.ts';
import { csrfField, page } from './layout.ts';
import { caseLink } from './links.ts';

type Session = NonNullable<FastifyRequest['session']>;

export interface MovementsView {
  zone: string;
  /** The movements shown (all, or those of `day`), newest moment first. */
  movements: readonly MovementWithMatch[];
  /** Bank statement lines no movement is matched to. */
  unmatchedLines: readonly StoredStatementLine[];
  day: string | null;
  /** The drift case the form was opened from (its figures fill the form), or null. */
  fromCase: StoredCase | null;
  /** What was typed, kept across a refusal. */
  typed: MovementFields;
  error: string | null;
  /** Several accounts configured: their ids, the list's ?account= filter ('' every account) and the form's choice; null with one. */
  accounts: { ids: readonly string[]; filter: string; chosen: string } | null;
}

/** Where a movement stands: waiting for a second person, or approved (and then how it stands against the bank). */
export function movementState(m: MovementWithMatch): 'pending approval' | 'approved' {
  return m.approvedBy === null ? 'pending approval' : 'approved';
}

export function statementWords(m: MovementWithMatch): string {
  const s = m.statement;
  if (s.kind !== 'matched') return s.kind;
  const difference = new Decimal(s.difference).isZero() ? '' : ` (difference ${s.difference})`;
  return `matched${s.match === 'many_to_one' ? ', many-to-one' : ''}: ${s.bankAccount} ${s.lineId}${difference}`;
}

/** The state as a badge: pending approval in the waiting colour, approved in the done one. */
export function movementBadge(m: MovementWithMatch): Html {
  const state = movementState(m);
  return html`<span class="state ${state === 'approved' ? 'state-completed' : 'state-pending'}">${state}</span>`;
}

/** The drift's figures as the form's defaults: its currency, its amount and sign as the movement's, its window as the interval. */
function caseDefaults(c: StoredCase | null, zone: string): MovementFields {
  if (!c) return {};
  const drift = typeof c.finding.drift === 'string' ? c.finding.drift : (c.difference ?? '');
  const iso = (d: Date | null) => (d ? (DateTime.fromJSDate(d, { zone }).toISO({ suppressMilliseconds: true }) ?? '') : '');
  return {
    currency: c.currency ?? '',
    direction: drift.startsWith('-') ? 'out' : drift ? 'in' : '',
    amount: drift.replace(/^-/, ''),
    occurred_at: iso(c.windowStart),
    occurred_until: iso(c.windowEnd),
    note: `case ${c.id}`,
  };
}

function recordForm(s: Session, v: MovementsView): Html {
  const f: MovementFields = { ...caseDefaults(v.fromCase, v.zone), ...v.typed };
  const choice = (name: keyof MovementFields, values: readonly string[], label: string) =>
    html`<label
      >${label}
      <select name="${name}" required>
        <option value="" ${f[name] ? null : html`selected`} disabled>choose…</option>
        ${values.map((x) => html`<option value="${x}" ${f[name] === x ? html`selected` : null}>${x}</option>`)}
      </select></label
    >`;
  const field = (name: keyof MovementFields, label: string, more: Html | null = null) =>
    html`<label>${label} <input name="${name}" value="${f[name] ?? ''}" ${more} /></label>`;
  return html`<form class="form record-movement" method="post" action="/movements">
    ${csrfField(s)} ${v.fromCase ? html`<input type="hidden" name="case" value="${v.fromCase.id}" />` : null}
    <strong>Record a movement</strong>
    ${
      v.accounts
        ? html`<label
            >Account
            <select name="account" required>
              <option value="" ${v.accounts.chosen ? null : html`selected`} disabled>choose…</option>
              ${v.accounts.ids.map((x) => html`<option value="${x}" ${v.accounts!.chosen === x ? html`selected` : null}>${x}</option>`)}
            </select></label
          >`
        : null
    }
    ${
      v.fromCase
        ? html`<span class="muted"
            >Filled in from ${caseLink(v.fromCase.id, `case ${v.fromCase.id}`)} (${v.fromCase.code}); once someone else approves it, a
            BALANCE_DRIFT case of the same amount and window is resolved, naming it.</span
          >`
        : html`<span class="muted">It explains the balance only once another finance user approves it.</span>`
    }
    ${field('reference', 'Reference (unique)', html`required maxlength="100"`)} ${choice('kind', MOVEMENT_KINDS, 'Kind')}
    ${choice('currency', CURRENCIES, 'Currency')} ${choice('direction', MOVEMENT_DIRECTIONS, 'Direction (in: into the wallet)')}
    ${field('amount', 'Amount', html`required inputmode="decimal"`)}
    ${field('occurred_at', 'Occurred at (ISO 8601 with offset)', html`required placeholder="2026-11-27T10:15:00+05:30"`)}
    ${field('occurred_until', 'Occurred until (when not known exactly; optional)')}
    ${field('usdt_amount', 'USDT sent or received (optional)', html`inputmode="decimal"`)}
    ${field('usdt_rate', 'USDT rate applied (optional: the day’s quoted rate)', html`inputmode="decimal"`)} ${field('note', 'Note')}
    <button type="submit">Record</button>
  </form>`;
}

function approveForm(s: Session, m: MovementWithMatch): Html | null {
  if (m.approvedBy !== null || !can(s.role, 'work-cases')) return null;
  if (isMaker(m, s.userName)) return html`<span class="muted">recorded by you: someone else approves it</span>`;
  return html`<form class="inline" method="post" action="/movements/${m.id}/approve">
    ${csrfField(s)}<button type="submit">Approve</button>
  </form>`;
}

function movementsTable(s: Session, rows: readonly MovementWithMatch[], zone: string, withAccount: boolean): Html {
  if (rows.length === 0) return html`<p class="muted">None.</p>`;
  return dataTable(
    html`${withAccount ? html`<th>account</th>` : null}
      <th>reference</th>
      <th>kind</th>
      <th>currency</th>
      <th>in/out</th>
      <th class="num">amount</th>
      <th>occurred</th>
      <th class="num">USDT</th>
      <th>recorded by</th>
      <th>state</th>
      <th>bank statement</th>
      <th></th>`,
    rows.map(
      (m) =>
        html`<tr>
          ${withAccount ? html`<td>${m.account}</td>` : null}
          <td><a href="/movements/${m.id}">${m.reference}</a></td>
          <td>${m.kind}</td>
          <td>${m.currency}</td>
          <td>${m.direction}</td>
          <td class="num">${amount(m.amount, m.currency)}</td>
          <td>${at(m.occurredFrom, zone)}${m.occurredTo.getTime() !== m.occurredFrom.getTime() ? ` – ${at(m.occurredTo, zone)}` : ''}</td>
          <td class="num">${m.usdtAmount ?? ''}</td>
          <td>${m.recordedBy}</td>
          <td>${movementBadge(m)}${m.approvedBy ? html` <span class="muted">by ${m.approvedBy}</span>` : null}</td>
          <td>${m.statement.kind === 'unmatched' ? html`<strong>unmatched</strong>` : statementWords(m)}</td>
          <td>${approveForm(s, m)}</td>
        </tr>`,
    ),
  );
}

function linesTable(lines: readonly StoredStatementLine[]): Html {
  if (lines.length === 0) return html`<p class="muted">Every imported statement line is matched to a movement.</p>`;
  return dataTable(
    html`<th>bank account</th>
      <th>line</th>
      <th>booked</th>
      <th>currency</th>
      <th>credit/debit</th>
      <th class="num">amount</th>
      <th>references</th>
      <th>description</th>`,
    lines.map(
      (l) =>
        html`<tr>
          <td>${l.bankAccount}</td>
          <td>${l.lineId}</td>
          <td>${l.bookedOn}</td>
          <td>${l.currency}</td>
          <td>${l.direction}</td>
          <td class="num">${amount(l.amount, l.currency)}</td>
          <td>${l.refs.join(' ')}</td>
          <td class="wrap">${l.description}</td>
        </tr>`,
    ),
  );
}

/** The list's account filter (several accounts): every account's movements, or one account's. */
function accountFilter(accounts: NonNullable<MovementsView['accounts']>, day: string | null): Html {
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${accounts.filter === value ? html`selected` : null}>${label}</option>`;
  return html`<form class="filters" method="get" action="/movements">
    ${day ? html`<input type="hidden" name="day" value="${day}" />` : null}
    <label
      >Account
      <select name="account">
        ${[option('', 'all accounts'), ...accounts.ids.map((a) => option(a, a))]}
      </select></label
    >
    <button type="submit">Show</button>
  </form>`;
}

/**
 * The movements page: counts (recorded, pending approval, matched, unmatched), what waits for a second
 * person, every movement with its bank statement match, the statement lines no movement explains, and
 * (finance) the form to record one.
 */
export function movementsPage(s: Session, v: MovementsView): string {
  const pending = v.movements.filter((m) => m.approvedBy === null);
  const matched = v.movements.filter((m) => m.statement.kind === 'matched').length;
  const unmatched = v.movements.filter((m) => m.statement.kind === 'unmatched').length;
  const scope = v.day ? html` moving the balance on <a href="/days/${v.day}">${v.day}</a>` : null;
  const body = html`<h1>Movements${v.day ? ` of ${v.day}` : null}</h1>
    <p class="muted">
      Money moved into or out of the provider wallet that no order explains: top-ups, withdrawals, the provider's adjustments and charges.
      One finance user records a movement, another approves it; only then does it explain the roll-forward. Times in ${v.zone}.
      ${v.day ? html`<a href="/movements">every movement</a>` : null}
    </p>
    ${v.accounts ? accountFilter(v.accounts, v.day) : null} ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : null}
    <p class="movement-counts">
      <strong>${count(v.movements.length)}</strong> recorded${scope} · <strong>${count(pending.length)}</strong> pending approval ·
      <strong>${count(matched)}</strong> matched to the bank · <strong>${count(unmatched)}</strong> unmatched ·
      <strong>${count(v.unmatchedLines.length)}</strong> statement lines without a movement
    </p>
    <h2>Pending approval</h2>
    ${movementsTable(s, pending, v.zone, v.accounts !== null)}
    ${
      can(s.role, 'work-cases')
        ? html`<h2>Record</h2>
            ${recordForm(s, v)}`
        : null
    }
    <h2>Recorded movements</h2>
    ${movementsTable(s, v.movements, v.zone, v.accounts !== null)}
    <h2>Bank statement lines without a movement</h2>
    ${linesTable(v.unmatchedLines)}`;
  return page({ title: v.day ? `Movements of ${v.day}` : 'Movements', session: s, nav: 'movements' }, body);
}
