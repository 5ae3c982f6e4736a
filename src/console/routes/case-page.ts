import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { versionsOfOrder } from '../../db/order-lookup.ts';
import { nextCaseId } from '../../db/case-queue.ts';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { acknowledgeCase, assignableUsers, assignCase, CaseActionError, commentCase, resolveCase, showCase } from '../../cases/work.ts';
import { casePage, noSuchCase, type CaseView, type Typed } from '../pages/case.ts';
import { backQuery } from './case-query.ts';

const VERSION_MISSING =
  'version: missing or not a whole number; reload the case and act again (the form sends the version you looked at, so a change since is not overwritten)';

type Action = 'acknowledge' | 'resolve' | 'assign' | 'comment';

/** One case (GET /cases/:id) and what a person does to it there; `back` carries the queue's filters through. */
export function registerCasePageRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/cases/:id', { config: { access: 'read' } }, async (request, reply) => {
    const detail = await findCase(deps, (request.params as { id: string }).id);
    if (!detail) return sendPage(reply, 404, noSuchCase(request.session!));
    const back = backQuery((request.query as { back?: unknown }).back);
    return sendPage(
      reply,
      200,
      casePage(deps, request.session!, detail, { error: null, typed: {}, users: await assignableUsers(deps.db), back }),
    );
  });

  const act = (kind: Action) => async (request: FastifyRequest, reply: FastifyReply) => {
    const s = request.session!;
    const id = (request.params as { id: string }).id;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const back = backQuery(body.back);
    const detail = await findCase(deps, id);
    if (!detail) return sendPage(reply, 404, noSuchCase(s));
    const again = async (status: number, error: string) =>
      sendPage(
        reply,
        status,
        casePage(deps, s, (await findCase(deps, id)) ?? detail, {
          error,
          typed: typedOf(body),
          users: await assignableUsers(deps.db),
          back,
        }),
      );
    // Required: without the version the form was computed from, a change made since would be overwritten unseen.
    if (typeof body.version !== 'string' || !/^\d{1,9}$/.test(body.version)) return again(400, VERSION_MISSING);
    try {
      await perform(deps, kind, id, body, s.userName, Number(body.version));
    } catch (err) {
      if (!(err instanceof CaseActionError)) throw err;
      // What was typed stays in the form: the person fixes one field, not the whole form.
      return again(409, err.message);
    }
    return reply.redirect(`/cases/${id}${back ? `?back=${encodeURIComponent(back)}` : ''}`, 303);
  };
  app.post('/cases/:id/acknowledge', { config: { access: 'work-cases' } }, act('acknowledge'));
  app.post('/cases/:id/resolve', { config: { access: 'work-cases' } }, act('resolve'));
  app.post('/cases/:id/assign', { config: { access: 'work-cases' } }, act('assign'));
  app.post('/cases/:id/comment', { config: { access: 'work-cases' } }, act('comment'));
}

/** One action on one case, as the signed-in console user (the actor of the case's audit rows). */
async function perform(deps: ConsoleDeps, kind: Action, id: string, body: Record<string, unknown>, userName: string, version: number) {
  const note = typeof body.note === 'string' ? body.note.trim().slice(0, 2000) : '';
  const who = { actor: `console:${userName}`, note, now: deps.now(), expectedVersion: version };
  if (kind === 'acknowledge') await acknowledgeCase(deps.db, id, who);
  else if (kind === 'comment') await commentCase(deps.db, id, who);
  else if (kind === 'assign') {
    const to = typeof body.assignee === 'string' ? body.assignee.trim() : '';
    await assignCase(deps.db, id, to === '' ? null : to, { ...who, note: '' });
  } else {
    if (!note) throw new CaseActionError('note: say what was done or why, for the audit trail');
    await resolveCase(deps.db, id, { ...who, reason: typeof body.reason === 'string' ? body.reason : '' });
  }
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
