import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import type { Session } from '../auth/sessions.ts';
import { actOnCases, type SelectedCase } from '../../cases/bulk.ts';
import { confirmBulk, previewBulk } from '../../cases/bulk-by-filter.ts';
import { isEmptyFilter } from '../../db/case-filter.ts';
import { RESOLUTION_REASONS, type CaseEvent } from '../../recon/cases.ts';
import { bulkConfirmRefused, bulkDone, bulkPreviewPage, bulkRefused } from '../pages/case-bulk.ts';
import { page } from '../pages/layout.ts';
import type { Html } from '../../html/html.ts';
import { backQuery, filterOf, queryOf } from './case-query.ts';
import { consoleAccountIds } from './account-choice.ts';

/** Many cases at once: the ticked ones (POST /cases/bulk), or every case of a filter, previewed then confirmed. */
export function registerCaseBulkRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const titled = (reply: FastifyReply, s: Session, status: number, inner: Html) =>
    sendPage(reply, status, page({ title: 'Cases', session: s, nav: 'cases' }, inner));

  /** Each case as selected (id and version), one reason and note, one audit event per case. */
  app.post('/cases/bulk', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const back = backQuery(body.back);
    const { selected, problems } = selectionOf(body.sel);
    const ask = bulkAsk(body, s.userName, problems);
    // Refused: nothing changed, and the selection, the filters and what was typed are all kept for another try.
    if (problems.length || !ask) return titled(reply, s, 400, bulkRefused(s, problems, { back, selected, body }));
    const out = await actOnCases(deps.db, selected, ask.event, deps.now(), { me: s.userName, includeAssigned: ask.includeAssigned });
    return titled(reply, s, out.refused.length && !out.done.length ? 409 : 200, bulkDone(out, ask.verb, back));
  });

  /** Every case the filter matches: a dry run shown first, with the count, what would be left and why. */
  app.post('/cases/bulk/preview', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const back = backQuery(body.back);
    const { filter, problems } = filterOf(queryOf(back), zone, deps.now(), s.userName, consoleAccountIds(deps.config));
    if (isEmptyFilter(filter))
      problems.push(
        'filter: narrow the queue first (a code, currency, day, age, ref or assignee) so this cannot act on the whole queue by accident',
      );
    const ask = bulkAsk(body, s.userName, problems);
    if (problems.length || !ask) return titled(reply, s, 400, bulkRefused(s, problems, { back, selected: [], body }));
    const preview = await previewBulk(
      deps.db,
      { filter, query: back, event: ask.event, includeAssigned: ask.includeAssigned },
      s,
      deps.now(),
    );
    return titled(reply, s, 200, bulkPreviewPage(s, preview, ask.verb, back));
  });

  app.post('/cases/bulk/confirm', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const result = await confirmBulk(deps.db, typeof body.token === 'string' ? body.token : '', s, deps.now());
    if (result.kind === 'refused') return titled(reply, s, 409, bulkConfirmRefused(result.message, backQuery(body.back)));
    const verb = typeof body.verb === 'string' && body.verb === 'acknowledged' ? 'acknowledged' : 'resolved';
    return titled(reply, s, 200, bulkDone(result.outcome, verb, result.query));
  });
}

/** The ticked cases as the queue lists them (id:version); anything else is a problem naming it. */
function selectionOf(sel: unknown): { selected: SelectedCase[]; problems: string[] } {
  const raw = sel === undefined ? [] : Array.isArray(sel) ? sel : [sel];
  const selected: SelectedCase[] = [];
  const problems: string[] = [];
  for (const v of raw) {
    const m = typeof v === 'string' ? /^([1-9]\d{0,17}):(\d{1,9})$/.exec(v) : null;
    if (m) selected.push({ id: m[1], version: Number(m[2]) });
    else problems.push(`sel: ${JSON.stringify(v)} is not a case as the queue lists it (id:version); reload the queue`);
  }
  if (selected.length === 0 && problems.length === 0) problems.push('sel: select at least one case, or preview all matching the filter');
  return { selected, problems };
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
