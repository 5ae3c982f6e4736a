import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { acknowledgeCase, CaseActionError, listCases, resolveCase, showCase, type CaseDetail } from '../../cases/work.ts';
import { CASE_STATES, ageBucket, parseAge, type CaseState } from '../../recon/cases.ts';
import type { CaseFilter } from '../../db/cases.ts';
import { businessDay } from '../../report/date.ts';
import { CURRENCIES } from '../../money/decimal.ts';
import { html } from '../html.ts';
import { page, stateBadge } from '../pages/layout.ts';
import { at, count } from '../pages/format.ts';
import { casePage, valueCell } from '../pages/case.ts';

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

async function findCase(deps: ConsoleDeps, id: string): Promise<CaseDetail | null> {
  if (!/^[1-9]\d{0,17}$/.test(id)) return null;
  try {
    return await showCase(deps.db, id);
  } catch (err) {
    if (err instanceof CaseActionError) return null;
    throw err;
  }
}
