import type { FastifyInstance } from 'fastify';
import { versionsOfOrder } from '../../db/order-lookup.ts';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { acknowledgeCase, assignableUsers, assignCase, CaseActionError, commentCase, resolveCase, showCase } from '../../cases/work.ts';
import { actOnCases, type SelectedCase } from '../../cases/bulk.ts';
import { confirmBulk, previewBulk } from '../../cases/bulk-by-filter.ts';
import { bulkDone, bulkPreviewPage, bulkRefused } from '../pages/case-bulk.ts';
import { CASE_STATES, RESOLUTION_REASONS, parseAge, type CaseEvent, type CaseState } from '../../recon/cases.ts';
import { MISMATCH_CODES } from '../../domain/verdicts.ts';
import { isEmptyFilter, REF_PIECE_MIN, type CaseFilter } from '../../db/case-filter.ts';
import { CASE_SORTS, nextCaseId, selectCasePage, type CasePage, type CaseSort } from '../../db/case-queue.ts';
import { queueBody } from '../pages/case-queue.ts';
import { writeQueueWorkbook } from '../../cases/export-workbook.ts';
import fs from 'node:fs/promises';
import { businessDay } from '../../report/date.ts';
import { CURRENCIES } from '../../money/decimal.ts';
import { html, type Html } from '../../html/html.ts';
import { page } from '../pages/layout.ts';
import { casePage, type CaseView, type Typed } from '../pages/case.ts';

const PAGE = 100;
const VERSION_MISSING =
  'version: missing or not a whole number; reload the case and act again (the form sends the version you looked at, so a change since is not overwritten)';

interface Query {
  state?: string;
  /** code=FEE&code=STATUS (the form's multiple choice) or code=FEE,STATUS (a link). */
  code?: string | string[];
  currency?: string;
  day?: string;
  age?: string;
  ref?: string;
  assignee?: string;
  sort?: string;
  after?: string;
  before?: string;
  /** The Nth page (1-based): "page 100" typed or linked. */
  page?: string;
}
type Shown = Record<Exclude<keyof Query, 'after' | 'before' | 'page'>, string>;

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
  const codes = [...new Set((Array.isArray(q.code) ? q.code : [q.code ?? '']).flatMap((c) => c.split(',')).map((c) => c.trim()))].filter(
    Boolean,
  );
  const unknown = codes.filter((c) => !MISMATCH_CODES.includes(c as never));
  if (unknown.length)
    problems.push(
      `code: ${unknown.map((c) => JSON.stringify(c)).join(', ')} is not a finding code; choose from ${MISMATCH_CODES.join(', ')}`,
    );
  else if (codes.length) {
    filter.codes = codes;
    shown.code = codes.join(',');
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
        const pageNo = q.page && !q.after && !q.before ? pageNumberOf(q.page, problems) : undefined;
        if (problems.length === 0) {
          found = await selectCasePage(deps.db.knex, filter, {
            sort,
            limit: PAGE,
            after: q.after || undefined,
            before: q.before || undefined,
            page: pageNo,
          });
          if (pageNo !== undefined && found.cases.length === 0 && found.total > 0) {
            problems.push(`page: ${pageNo} is past the last page (${Math.ceil(found.total / PAGE)} pages of ${PAGE})`);
            found = null;
          }
        }
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
    const back = backQuery(body.back);
    const raw = body.sel === undefined ? [] : Array.isArray(body.sel) ? body.sel : [body.sel];
    const selected: SelectedCase[] = [];
    const problems: string[] = [];
    for (const v of raw) {
      const m = typeof v === 'string' ? /^([1-9]\d{0,17}):(\d{1,9})$/.exec(v) : null;
      if (m) selected.push({ id: m[1], version: Number(m[2]) });
      else problems.push(`sel: ${JSON.stringify(v)} is not a case as the queue lists it (id:version); reload the queue`);
    }
    if (selected.length === 0 && problems.length === 0) problems.push('sel: select at least one case, or preview all matching the filter');
    const ask = bulkAsk(body, s.userName, problems);
    const titled = (status: number, inner: Html) => sendPage(reply, status, page({ title: 'Cases', session: s, nav: 'cases' }, inner));
    // Refused: nothing changed, and the selection, the filters and what was typed are all kept for another try.
    if (problems.length || !ask) return titled(400, bulkRefused(s, problems, { back, selected, body }));
    const out = await actOnCases(deps.db, selected, ask.event, deps.now(), { me: s.userName, includeAssigned: ask.includeAssigned });
    return titled(out.refused.length && !out.done.length ? 409 : 200, bulkDone(out, ask.verb, back));
  });

  /** Every case the filter matches: a dry run shown first, with the count, what would be left and why. */
  app.post('/cases/bulk/preview', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const back = backQuery(body.back);
    const { filter, problems } = filterOf(queryOf(back), zone, deps.now(), s.userName);
    if (isEmptyFilter(filter))
      problems.push(
        'filter: narrow the queue first (a code, currency, day, age, ref or assignee) so this cannot act on the whole queue by accident',
      );
    const ask = bulkAsk(body, s.userName, problems);
    const titled = (status: number, inner: Html) => sendPage(reply, status, page({ title: 'Cases', session: s, nav: 'cases' }, inner));
    if (problems.length || !ask) return titled(400, bulkRefused(s, problems, { back, selected: [], body }));
    const preview = await previewBulk(
      deps.db,
      { filter, query: back, event: ask.event, includeAssigned: ask.includeAssigned },
      s,
      deps.now(),
    );
    return titled(200, bulkPreviewPage(s, preview, ask.verb, back));
  });

  app.post('/cases/bulk/confirm', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const result = await confirmBulk(deps.db, typeof body.token === 'string' ? body.token : '', s, deps.now());
    const titled = (status: number, inner: Html) => sendPage(reply, status, page({ title: 'Cases', session: s, nav: 'cases' }, inner));
    if (result.kind === 'refused')
      return titled(
        409,
        html`<h1>Nothing changed</h1>
          <p class="error" role="alert">${result.message}</p>
          <p><a href="/cases${backQuery(body.back) ? `?${backQuery(body.back)}` : ''}">back to the queue</a></p>`,
      );
    const verb = typeof body.verb === 'string' && body.verb === 'acknowledged' ? 'acknowledged' : 'resolved';
    return titled(200, bulkDone(result.outcome, verb, result.query));
  });
}

function pageNumberOf(text: string, problems: string[]): number | undefined {
  if (/^[1-9]\d{0,6}$/.test(text)) return Number(text);
  problems.push(`page: expected a page number from 1 (got ${JSON.stringify(text.slice(0, 20))})`);
  return undefined;
}

/** The queue's query string a bulk form carries (without "?"): only what the queue's own links hold. */
function backQuery(v: unknown): string {
  return typeof v === 'string' && v.length <= 2000 && /^[\w%+=&.,:~-]*$/.test(v) ? v.replace(/^\?/, '') : '';
}

function queryOf(back: string): Query {
  const q: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(back)) q[k] = k in q ? [...[q[k]].flat(), v] : v;
  return q as Query;
}

/** The action asked for, checked: problems say what to fix. */
function bulkAsk(
  body: Record<string, unknown>,
  userName: string,
  problems: string[],
): { event: CaseEvent; verb: 'acknowledged' | 'resolved'; includeAssigned: boolean } | null {
  const action = body.action;
  const note = typeof body.note === 'string' ? body.note.trim().slice(0, 2000) : '';
  const reason = typeof body.reason === 'string' ? body.reason : '';
  if (action !== 'acknowledge' && action !== 'resolve') problems.push('action: choose acknowledge or resolve');
  if (action === 'resolve' && !(RESOLUTION_REASONS as readonly string[]).includes(reason))
    problems.push(`reason: choose one of ${RESOLUTION_REASONS.join(', ')} to resolve`);
  if (action === 'resolve' && !note) problems.push('note: say what was done or why, for the audit trail');
  if (problems.length) return null;
  const actor = `console:${userName}`;
  return {
    event: action === 'acknowledge' ? { kind: 'acknowledge', actor, note } : { kind: 'resolve', actor, reason, note },
    verb: action === 'acknowledge' ? 'acknowledged' : 'resolved',
    includeAssigned: body.include_assigned === 'on' || body.include_assigned === '1',
  };
}

async function findCase(deps: ConsoleDeps, id: string): Promise<CaseView | null> {
  if (!/^[1-9]\d{0,17}$/.test(id)) return null;
  try {
    const c = await showCase(deps.db, id);
    const versions = c.direction && c.orderId ? await versionsOfOrder(deps.db.knex, c.direction, c.orderId) : [];
    return { ...c, versions, next: await nextCaseId(deps.db.knex, c) };
  } catch (err) {
    if (err instanceof CaseActionError) return null;
    throw err;
  }
}

function typedOf(body: Record<string, unknown>): Typed {
  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 2000) : undefined);
  return { reason: text(body.reason), note: text(body.note), form: text(body.form) };
}
