import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import { versionsOfOrder, type OrderInVersion } from '../../db/order-lookup.ts';
import { orderLink } from '../pages/links.ts';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { acknowledgeCase, CaseActionError, listCases, resolveCase, showCase, type CaseDetail } from '../../cases/work.ts';
import { CASE_STATES, RESOLUTION_REASONS, ageBucket, parseAge, type CaseState } from '../../recon/cases.ts';
import type { CaseFilter } from '../../db/cases.ts';
import { businessDay } from '../../report/date.ts';
import { CURRENCIES } from '../../money/decimal.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page, stateBadge } from '../pages/layout.ts';
import { amount, at, count } from '../pages/format.ts';
import { can } from '../auth/roles.ts';

const CODE = /^[A-Z_]{2,32}$/;
const AGES = ['', '1h', '1d', '3d', '7d', '30d'];
const VERSION_MISSING =
  'version: missing or not a whole number; reload the case and act again (the form sends the version you looked at, so a change since is not overwritten)';

interface Query {
  state?: string;
  code?: string;
  currency?: string;
  day?: string;
  age?: string;
}

/** The filter from the query string; anything not of the expected shape is ignored and said so. */
function filterOf(q: Query, zone: string, now: Date): { filter: CaseFilter; problems: string[]; shown: Required<Query> } {
  const problems: string[] = [];
  const filter: CaseFilter = { limit: 500 };
  const shown = { state: '', code: '', currency: '', day: '', age: '' };
  const state = q.state ?? 'unresolved';
  if (state === 'unresolved') filter.states = ['open', 'acknowledged'];
  else if ((CASE_STATES as readonly string[]).includes(state)) filter.states = [state as CaseState];
  else if (state !== 'all') problems.push(`state: expected open, acknowledged, resolved, unresolved or all`);
  shown.state = state;
  if (q.code) {
    if (CODE.test(q.code)) filter.code = shown.code = q.code;
    else problems.push('code: expected a mismatch code such as FEE');
  }
  if (q.currency) {
    if ((CURRENCIES as readonly string[]).includes(q.currency)) filter.currency = shown.currency = q.currency;
    else problems.push(`currency: expected one of ${CURRENCIES.join(', ')}`);
  }
  if (q.day) {
    try {
      const d = businessDay(q.day, zone);
      filter.occurredFrom = d.start.toJSDate();
      filter.occurredTo = d.end.toJSDate();
      shown.day = d.date;
    } catch (err) {
      problems.push(`day: ${(err as Error).message}`);
    }
  }
  if (q.age) {
    try {
      filter.openedBefore = new Date(now.getTime() - parseAge(q.age));
      shown.age = q.age;
    } catch (err) {
      problems.push(`age: ${(err as Error).message}`);
    }
  }
  return { filter, problems, shown };
}

export function registerCaseRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;

  app.get('/cases', { config: { access: 'read' } }, async (request, reply) => {
    const now = deps.now();
    const { filter, problems, shown } = filterOf(request.query as Query, zone, now);
    const cases = await listCases(deps.db, filter);
    const option = (value: string, label: string, current: string) =>
      html`<option value="${value}" ${value === current ? html`selected` : null}>${label}</option>`;
    const body = html`<h1>Cases <span class="muted">(${count(cases.length)}${cases.length === filter.limit ? '+' : ''})</span></h1>
      ${problems.map((p) => html`<p class="error">${p}</p>`)}
      <form class="filters" method="get" action="/cases">
        <label
          >State
          <select name="state">
            ${[
              option('unresolved', 'open or acknowledged', shown.state),
              ...CASE_STATES.map((s) => option(s, s, shown.state)),
              option('all', 'all', shown.state),
            ]}
          </select></label
        >
        <label>Code <input name="code" value="${shown.code}" placeholder="e.g. FEE" size="12" /></label>
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
        <button type="submit">Filter</button> <a href="/cases">clear</a>
      </form>
      ${
        cases.length === 0
          ? html`<p class="muted">No cases match.</p>`
          : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th class="num">case</th>
                    <th>state</th>
                    <th>code</th>
                    <th>currency</th>
                    <th>order</th>
                    <th class="num">local</th>
                    <th class="num">provider</th>
                    <th>occurred</th>
                    <th>open for</th>
                    <th class="num">seen</th>
                  </tr>
                </thead>
                <tbody>
                  ${cases.map(
                    (c) =>
                      html`<tr>
                        <td class="num"><a href="/cases/${c.id}">${c.id}</a></td>
                        <td>${stateBadge(c.state)}${c.resolution ? html` <span class="muted">${c.resolution}</span>` : null}</td>
                        <td>${c.code}</td>
                        <td>${c.currency ?? ''}</td>
                        <td>${c.merchantRef ?? c.subject}</td>
                        <td class="num">${valueCell(c.finding.local, c.currency)}</td>
                        <td class="num">${valueCell(c.finding.provider, c.currency)}</td>
                        <td>${at(c.occurredAt, zone)}</td>
                        <td>${c.state === 'resolved' ? '' : ageBucket(c.openedAt, now)}</td>
                        <td class="num">${count(c.seenCount)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }`;
    return sendPage(reply, 200, page({ title: 'Cases', session: request.session, nav: 'cases' }, body));
  });

  app.get('/cases/:id', { config: { access: 'read' } }, async (request, reply) => {
    const detail = await findCase(deps, (request.params as { id: string }).id);
    if (!detail)
      return sendPage(reply, 404, page({ title: 'Not found', session: request.session, nav: 'cases' }, html`<h1>No such case</h1>`));
    return sendPage(reply, 200, casePage(deps, request.session!, detail, null));
  });

  const act =
    (kind: 'acknowledge' | 'resolve') => async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
      const s = request.session!;
      const id = (request.params as { id: string }).id;
      const body = (request.body ?? {}) as Record<string, unknown>;
      const note = typeof body.note === 'string' ? body.note.trim().slice(0, 2000) : '';
      const detail = await findCase(deps, id);
      if (!detail) return sendPage(reply, 404, page({ title: 'Not found', session: s, nav: 'cases' }, html`<h1>No such case</h1>`));
      // Required: without the version the form was computed from, a change made since would be overwritten unseen.
      if (typeof body.version !== 'string' || !/^\d{1,9}$/.test(body.version))
        return sendPage(reply, 400, casePage(deps, s, detail, VERSION_MISSING));
      const version = Number(body.version);
      try {
        // The actor in the cases' audit rows is the signed-in console user.
        const who = { actor: `console:${s.userName}`, note, now: deps.now(), expectedVersion: version };
        if (kind === 'acknowledge') await acknowledgeCase(deps.db, id, who);
        else {
          if (!note) throw new CaseActionError('note: say what was done or why, for the audit trail');
          await resolveCase(deps.db, id, { ...who, reason: typeof body.reason === 'string' ? body.reason : '' });
        }
      } catch (err) {
        if (!(err instanceof CaseActionError)) throw err;
        return sendPage(reply, 409, casePage(deps, s, (await findCase(deps, id))!, err.message));
      }
      return reply.redirect(`/cases/${id}`, 303);
    };
  app.post('/cases/:id/acknowledge', { config: { access: 'work-cases' } }, act('acknowledge'));
  app.post('/cases/:id/resolve', { config: { access: 'work-cases' } }, act('resolve'));
}

/** A case with the report versions that recorded its order (the page links them). */
type CaseView = CaseDetail & { versions: OrderInVersion[] };

async function findCase(deps: ConsoleDeps, id: string): Promise<CaseView | null> {
  if (!/^[1-9]\d{0,17}$/.test(id)) return null;
  try {
    const c = await showCase(deps.db, id);
    const versions = c.direction && c.orderId ? await versionsOfOrder(deps.db.knex, c.direction, c.orderId) : [];
    return { ...c, versions };
  } catch (err) {
    if (err instanceof CaseActionError) return null;
    throw err;
  }
}

function valueCell(value: unknown, currency: string | null): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return currency && /^-?\d+(\.\d+)?$/.test(text) ? amount(text, currency) : text;
}

function casePage(
  deps: ConsoleDeps,
  s: NonNullable<import('fastify').FastifyRequest['session']>,
  c: CaseView,
  error: string | null,
): string {
  const zone = deps.config.REPORT_TIMEZONE;
  const cur = c.currency ?? '';
  const o = c.order;
  const mayWork = can(s.role, 'work-cases');
  // The business day the case is about, as `cases list --day` selects it.
  const caseDay = DateTime.fromJSDate(c.occurredAt, { zone }).toISODate()!;
  const rows: Array<[string, unknown, unknown]> = [];
  const latest = c.checks[c.checks.length - 1];
  // Both sides as the latest check saw them: the order may have been updated since (a resolved pending order).
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
  const actions: Html | null =
    mayWork && c.state !== 'resolved'
      ? html`<div class="grid2">
          ${
            c.state === 'open'
              ? html`<form class="form" method="post" action="/cases/${c.id}/acknowledge">
                  ${csrfField(s)}<input type="hidden" name="version" value="${c.version}" /> <strong>Acknowledge</strong
                  ><label>Note <textarea name="note" rows="2"></textarea></label><button type="submit">Acknowledge</button>
                </form>`
              : html`<div></div>`
          }
          <form class="form" method="post" action="/cases/${c.id}/resolve">
            ${csrfField(s)}<input type="hidden" name="version" value="${c.version}" />
            <strong>Resolve</strong>
            <label
              >Reason
              <select name="reason" required>
                ${RESOLUTION_REASONS.map((r) => html`<option value="${r}">${r}</option>`)}
              </select></label
            >
            <label>Note <textarea name="note" rows="3" required></textarea></label>
            <button type="submit">Resolve</button>
          </form>
        </div>`
      : null;
  const body = html`<h1>
      Case ${c.id}: ${c.code} ${stateBadge(c.state)}${c.resolution ? html` <span class="muted">${c.resolution}</span>` : null}
    </h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <dl class="facts">
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
      <dt>occurred</dt>
      <dd>${at(c.occurredAt, zone)}</dd>
      <dt>opened</dt>
      <dd>${at(c.openedAt, zone)}${c.state !== 'resolved' ? ` (${ageBucket(c.openedAt, deps.now())})` : ''}</dd>
      <dt>seen</dt>
      <dd>${count(c.seenCount)} checks, last ${at(c.lastSeenAt, zone)}</dd>
    </dl>
    ${
      rows.length
        ? html`<h2>Local against provider <span class="muted">(as the latest check saw them, ${at(latest?.checkedAt, zone)})</span></h2>
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
                      html`<tr>
                        <td>${k}</td>
                        <td class="num">${String(l ?? '')}</td>
                        <td class="num">${String(p ?? '')}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
        : html`<h2>Local against provider</h2>
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
            </div>`
    }
    ${actions}
    <h2>Checks of the order</h2>
    ${
      c.checks.length
        ? html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>checked</th>
                  <th class="num">run</th>
                  <th>verdict</th>
                  <th>codes</th>
                  <th>provider status</th>
                  <th class="num">provider amount</th>
                  <th class="num">provider fee</th>
                  <th>reason</th>
                </tr>
              </thead>
              <tbody>
                ${c.checks.map(
                  (i) =>
                    html`<tr>
                      <td>${at(i.checkedAt, zone)}</td>
                      <td class="num">${i.runId}</td>
                      <td>${stateBadge(i.verdict)}</td>
                      <td>${i.codes.join(' ')}</td>
                      <td>${i.providerStatus ?? ''}</td>
                      <td class="num">${amount(i.providerAmount, i.currency)}</td>
                      <td class="num">${amount(i.providerFee, i.currency)}</td>
                      <td class="wrap">${i.reason}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : html`<p class="muted">No checks recorded for an order.</p>`
    }
    <h2>History</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>at</th>
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
  return page({ title: `Case ${c.id}`, session: s, nav: 'cases' }, body);
}
