import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import {
  acknowledgeCase,
  assignableUsers,
  assignCase,
  CaseActionError,
  commentCase,
  resolveCase,
  showCase,
  type CaseDetail,
} from '../../cases/work.ts';
import { actOnCases, type SelectedCase } from '../../cases/bulk.ts';
import { CASE_STATES, RESOLUTION_REASONS, ageBucket, parseAge, type CaseState } from '../../recon/cases.ts';
import { MISMATCH_CODES } from '../../domain/verdicts.ts';
import { REF_PIECE_MIN, type CaseFilter } from '../../db/case-filter.ts';
import { CASE_SORTS, selectCasePage, type CasePage, type CaseSort } from '../../db/case-queue.ts';
import { plural, queueBody, valueCell } from '../pages/case-queue.ts';
import { writeQueueWorkbook } from '../../cases/export-workbook.ts';
import fs from 'node:fs/promises';
import { businessDay } from '../../report/date.ts';
import { CURRENCIES } from '../../money/decimal.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page, stateBadge } from '../pages/layout.ts';
import { amount, at } from '../pages/format.ts';
import { can } from '../auth/roles.ts';

const PAGE = 100;
const VERSION_MISSING =
  'version: missing or not a whole number; reload the case and act again (the form sends the version you looked at, so a change since is not overwritten)';

interface Query {
  state?: string;
  code?: string;
  currency?: string;
  day?: string;
  age?: string;
  ref?: string;
  assignee?: string;
  sort?: string;
  after?: string;
  before?: string;
}
type Shown = Required<Omit<Query, 'after' | 'before'>>;

/** The filter from the query string; a value not of the expected shape is refused, naming the field and what it takes. */
function filterOf(q: Query, zone: string, now: Date, me: string): { filter: CaseFilter; sort: CaseSort; problems: string[]; shown: Shown } {
  const problems: string[] = [];
  const filter: CaseFilter = {};
  const shown: Shown = { state: '', code: '', currency: '', day: '', age: '', ref: '', assignee: '', sort: 'age' };
  const state = q.state || 'unresolved';
  if (state === 'unresolved') filter.states = ['open', 'acknowledged'];
  else if ((CASE_STATES as readonly string[]).includes(state)) filter.states = [state as CaseState];
  else if (state !== 'all') problems.push(`state: expected open, acknowledged, resolved, unresolved or all`);
  shown.state = state;
  if (q.code) {
    if (MISMATCH_CODES.includes(q.code as never)) filter.code = shown.code = q.code;
    else problems.push(`code: ${JSON.stringify(q.code)} is not a finding code; choose one of ${MISMATCH_CODES.join(', ')}`);
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
  if (q.ref) {
    if (q.ref.trim().length >= REF_PIECE_MIN) filter.ref = shown.ref = q.ref.trim();
    else problems.push(`ref: give at least ${REF_PIECE_MIN} characters of a merchant or transaction ref (got ${q.ref.trim().length})`);
  }
  if (q.assignee) {
    shown.assignee = q.assignee;
    filter.assignee = q.assignee === 'me' ? me : q.assignee === 'nobody' ? null : q.assignee;
  }
  if (q.sort) {
    if ((CASE_SORTS as readonly string[]).includes(q.sort)) shown.sort = q.sort;
    else problems.push(`sort: expected ${CASE_SORTS.join(' or ')}`);
  }
  return { filter, sort: shown.sort as CaseSort, problems, shown };
}

export function registerCaseRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;

  app.get('/cases', { config: { access: 'read' } }, async (request, reply) => {
    const now = deps.now();
    const s = request.session!;
    const q = request.query as Query;
    const { filter, sort, problems, shown } = filterOf(q, zone, now, s.userName);
    let found: CasePage | null = null;
    if (problems.length === 0) {
      try {
        found = await selectCasePage(deps.db.knex, filter, {
          sort,
          limit: PAGE,
          after: q.after || undefined,
          before: q.before || undefined,
        });
      } catch (err) {
        if (!/^cursor: /.test((err as Error).message)) throw err;
        problems.push((err as Error).message);
      }
    }
    const users = await assignableUsers(deps.db);
    const body = queueBody({ deps, s, now, shown, found, problems, users });
    return sendPage(reply, problems.length ? 400 : 200, page({ title: 'Cases', session: s, nav: 'cases' }, body));
  });

  /** The filtered queue as a workbook, every match, with empty resolution columns to fill in. */
  app.get('/cases/export.xlsx', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const { filter, sort, problems } = filterOf(request.query as Query, zone, deps.now(), s.userName);
    if (problems.length) {
      const body = html`<h1>Nothing exported</h1>
        ${problems.map((p) => html`<p class="error" role="alert">${p}</p>`)}`;
      return sendPage(reply, 400, page({ title: 'Cases', session: s, nav: 'cases' }, body));
    }
    const out = await writeQueueWorkbook(deps.db, filter, sort, { zone, sla: deps.config.CASE_SLA_HOURS, now: deps.now() });
    try {
      const bytes = await fs.readFile(out.file);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('Content-Disposition', `attachment; filename="payrecon-cases-${deps.now().toISOString().slice(0, 10)}.xlsx"`)
        .send(bytes);
    } finally {
      await out.remove();
    }
  });

  app.get('/cases/:id', { config: { access: 'read' } }, async (request, reply) => {
    const detail = await findCase(deps, (request.params as { id: string }).id);
    if (!detail)
      return sendPage(reply, 404, page({ title: 'Not found', session: request.session, nav: 'cases' }, html`<h1>No such case</h1>`));
    return sendPage(reply, 200, casePage(deps, request.session!, detail, null, {}, await assignableUsers(deps.db)));
  });

  const act =
    (kind: 'acknowledge' | 'resolve' | 'assign' | 'comment') =>
    async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
      const s = request.session!;
      const id = (request.params as { id: string }).id;
      const body = (request.body ?? {}) as Record<string, unknown>;
      const note = typeof body.note === 'string' ? body.note.trim().slice(0, 2000) : '';
      const detail = await findCase(deps, id);
      if (!detail) return sendPage(reply, 404, page({ title: 'Not found', session: s, nav: 'cases' }, html`<h1>No such case</h1>`));
      // Required: without the version the form was computed from, a change made since would be overwritten unseen.
      if (typeof body.version !== 'string' || !/^\d{1,9}$/.test(body.version))
        return sendPage(reply, 400, casePage(deps, s, detail, VERSION_MISSING, typedOf(body), await assignableUsers(deps.db)));
      const version = Number(body.version);
      try {
        // The actor in the cases' audit rows is the signed-in console user.
        const who = { actor: `console:${s.userName}`, note, now: deps.now(), expectedVersion: version };
        if (kind === 'acknowledge') await acknowledgeCase(deps.db, id, who);
        else if (kind === 'comment') await commentCase(deps.db, id, who);
        else if (kind === 'assign') {
          const to = typeof body.assignee === 'string' ? body.assignee.trim() : '';
          await assignCase(deps.db, id, to === '' ? null : to, { ...who, note: '' });
        } else {
          if (!note) throw new CaseActionError('note: say what was done or why, for the audit trail');
          await resolveCase(deps.db, id, { ...who, reason: typeof body.reason === 'string' ? body.reason : '' });
        }
      } catch (err) {
        if (!(err instanceof CaseActionError)) throw err;
        // What was typed stays in the form: the person fixes one field, not the whole form.
        return sendPage(
          reply,
          409,
          casePage(deps, s, (await findCase(deps, id))!, err.message, typedOf(body), await assignableUsers(deps.db)),
        );
      }
      return reply.redirect(`/cases/${id}`, 303);
    };
  app.post('/cases/:id/acknowledge', { config: { access: 'work-cases' } }, act('acknowledge'));
  app.post('/cases/:id/resolve', { config: { access: 'work-cases' } }, act('resolve'));
  app.post('/cases/:id/assign', { config: { access: 'work-cases' } }, act('assign'));
  app.post('/cases/:id/comment', { config: { access: 'work-cases' } }, act('comment'));

  /** Many cases at once: each as selected (id and version), one reason and note, one audit event per case. */
  app.post('/cases/bulk', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const raw = body.sel === undefined ? [] : Array.isArray(body.sel) ? body.sel : [body.sel];
    const selected: SelectedCase[] = [];
    const problems: string[] = [];
    for (const v of raw) {
      const m = typeof v === 'string' ? /^([1-9]\d{0,17}):(\d{1,9})$/.exec(v) : null;
      if (m) selected.push({ id: m[1], version: Number(m[2]) });
      else problems.push(`sel: ${JSON.stringify(v)} is not a case as the queue lists it (id:version); reload the queue`);
    }
    const action = body.action;
    const note = typeof body.note === 'string' ? body.note.trim().slice(0, 2000) : '';
    const reason = typeof body.reason === 'string' ? body.reason : '';
    if (selected.length === 0 && problems.length === 0) problems.push('sel: select at least one case');
    if (action !== 'acknowledge' && action !== 'resolve') problems.push('action: choose acknowledge or resolve');
    if (action === 'resolve' && !(RESOLUTION_REASONS as readonly string[]).includes(reason))
      problems.push(`reason: choose one of ${RESOLUTION_REASONS.join(', ')} to resolve`);
    if (action === 'resolve' && !note) problems.push('note: say what was done or why, for the audit trail');
    const titled = (status: number, inner: Html) => sendPage(reply, status, page({ title: 'Cases', session: s, nav: 'cases' }, inner));
    if (problems.length) {
      return titled(
        400,
        html`<h1>Nothing changed</h1>
          ${problems.map((p) => html`<p class="error" role="alert">${p}</p>`)}
          <p><a href="/cases">back to the queue</a></p>`,
      );
    }
    const actor = `console:${s.userName}`;
    const out = await actOnCases(
      deps.db,
      selected,
      action === 'acknowledge' ? { kind: 'acknowledge', actor, note } : { kind: 'resolve', actor, reason, note },
      deps.now(),
    );
    const verb = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    return titled(
      out.refused.length && !out.done.length ? 409 : 200,
      html`<h1>${plural(out.done.length, 'case')} ${verb}</h1>
        ${
          out.refused.length
            ? html`<p class="error" role="alert">${plural(out.refused.length, 'case')} left as they were:</p>
                <ul>
                  ${out.refused.map((r) => html`<li><a href="/cases/${r.id}">case ${r.id}</a>: ${r.message}</li>`)}
                </ul>`
            : null
        }
        <p><a href="/cases">back to the queue</a></p>`,
    );
  });
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

/** What the person typed into the case's forms, kept across a refusal. */
interface Typed {
  reason?: string;
  note?: string;
  form?: string;
}

function typedOf(body: Record<string, unknown>): Typed {
  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 2000) : undefined);
  return { reason: text(body.reason), note: text(body.note), form: text(body.form) };
}

function casePage(
  deps: ConsoleDeps,
  s: NonNullable<import('fastify').FastifyRequest['session']>,
  c: CaseDetail,
  error: string | null,
  typed: Typed,
  users: readonly string[],
): string {
  const noteOf = (form: string) => (typed.form === form ? (typed.note ?? '') : '');
  const zone = deps.config.REPORT_TIMEZONE;
  const cur = c.currency ?? '';
  const o = c.order;
  const mayWork = can(s.role, 'work-cases');
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
  const hidden = (form: string) =>
    html`${csrfField(s)}<input type="hidden" name="version" value="${c.version}" /><input type="hidden" name="form" value="${form}" />`;
  const chosenReason = typed.form === 'resolve' ? (typed.reason ?? '') : '';
  const transitions: Html | null =
    mayWork && c.state !== 'resolved'
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
  const work: Html | null = mayWork
    ? html`<div class="grid2">
        <form class="form" method="post" action="/cases/${c.id}/assign">
          ${hidden('assign')}
          <strong>Assignee</strong>
          <label
            >Give to
            <select name="assignee">
              <option value="" ${c.assignee === null ? html`selected` : null}>nobody</option>
              ${users.map((u) => html`<option value="${u}" ${u === c.assignee ? html`selected` : null}>${u}</option>`)}
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
      </div>`
    : null;
  const actions = html`${transitions}${work}`;
  const body = html`<h1>
      Case ${c.id}: ${c.code} ${stateBadge(c.state)}${c.resolution ? html` <span class="muted">${c.resolution}</span>` : null}
    </h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <dl class="facts">
      <dt>about</dt>
      <dd>${o ? html`${o.direction} ${o.merchantRef} (transaction ${o.transactionRef}), ${o.currency} ${o.method}` : c.subject}</dd>
      <dt>finding</dt>
      <dd>${c.finding.note ?? ''}</dd>
      <dt>occurred</dt>
      <dd>${at(c.occurredAt, zone)}</dd>
      <dt>opened</dt>
      <dd>${at(c.openedAt, zone)}${c.state !== 'resolved' ? ` (${ageBucket(c.openedAt, deps.now())})` : ''}</dd>
      <dt>assignee</dt>
      <dd>${c.assignee ?? 'nobody'}</dd>
      <dt>seen</dt>
      <dd>${plural(c.seenCount, 'check')}, last ${at(c.lastSeenAt, zone)}</dd>
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
  return page({ title: `Case ${c.id}`, session: s, nav: 'cases' }, body);
}
