import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { listMovementsWithMatch, movementEvents, movementWithMatch } from '../../db/movements.ts';
import { unmatchedStatementLines } from '../../db/statements.ts';
import { getCase, type StoredCase } from '../../db/cases.ts';
import { businessDay } from '../../report/date.ts';
import { approveAndLink } from '../../movements/approve.ts';
import { recordMovement, type MovementFields } from '../../movements/record.ts';
import { MOVEMENT_COLUMNS } from '../../import/movement-row.ts';
import { html } from '../../html/html.ts';
import { page } from '../pages/layout.ts';
import { movementsPage } from '../pages/movements.ts';
import { movementPage } from '../pages/movements-detail.ts';
import { messageOf } from '../../domain/errors.ts';
import { consoleAccountIds } from './account-choice.ts';

/** The drift cases a movement may be recorded for: the form takes their figures. */
const DRIFT_CODES = new Set(['BALANCE_DRIFT', 'DRIFT_MATCHES_PENDING']);
const ID = /^[1-9]\d{0,17}$/;
const FIELDS = [...MOVEMENT_COLUMNS.required, ...MOVEMENT_COLUMNS.optional];

export function registerMovementRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const lagMs = deps.config.MOVEMENT_LAG_MIN * 60_000;
  // With several accounts the list filters by ?account= and the form records into a chosen account; with one, as before.
  const accountIds = consoleAccountIds(deps.config);
  const accountProblem = (id: string) =>
    `account: ${JSON.stringify(id.slice(0, 40))} is not a configured account; choose from ${accountIds.join(', ')}`;

  const notFound = (request: FastifyRequest, reply: FastifyReply, what: string) =>
    sendPage(
      reply,
      404,
      page(
        { title: 'Not found', session: request.session, nav: 'movements' },
        html`<h1>${what}</h1>
          <p><a href="/movements">Every movement</a></p>`,
      ),
    );

  /** The list, with the form; `status` and `typed` when a recording was refused. */
  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    opts: {
      day: string | null;
      fromCase: StoredCase | null;
      typed: MovementFields;
      error: string | null;
      status: number;
      /** The ?account= filter (several accounts only); '' for every account. */
      account?: string;
      /** The account chosen in a refused form, kept across the refusal. */
      typedAccount?: string;
    },
  ) {
    const { account = '', typedAccount, ...rest } = opts;
    const all = await listMovementsWithMatch(deps.db.knex, accountIds.length > 1 ? account || null : undefined);
    let movements = all;
    if (opts.day) {
      // The movements whose moment (or interval) falls in the business day, as the day's roll-forward sees them.
      const d = businessDay(opts.day, zone);
      const [from, to] = [d.start.toMillis(), d.end.toMillis()];
      movements = all.filter((m) => m.occurredTo.getTime() >= from && m.occurredFrom.getTime() < to);
    }
    const unmatchedLines = (await unmatchedStatementLines(deps.db.knex)).filter(
      (l) => !opts.day || Math.abs(Date.parse(l.bookedOn) - Date.parse(opts.day)) <= 86_400_000,
    );
    const chosen = typedAccount ?? (account || opts.fromCase?.accountId || '');
    const accounts = accountIds.length > 1 ? { ids: accountIds, filter: account, chosen } : null;
    const body = movementsPage(request.session!, { zone, movements, unmatchedLines, accounts, ...rest });
    return sendPage(reply, opts.status, body);
  }

  app.get('/movements', { config: { access: 'read' } }, async (request, reply) => {
    const q = request.query as { day?: unknown; case?: unknown; account?: unknown };
    const account = typeof q.account === 'string' && q.account !== '' && accountIds.length > 1 ? q.account : '';
    if (account !== '' && !accountIds.includes(account))
      return listPage(request, reply, { day: null, fromCase: null, typed: {}, error: accountProblem(account), status: 400 });
    let day: string | null = null;
    if (typeof q.day === 'string' && q.day !== '') {
      try {
        day = businessDay(q.day, zone).date;
      } catch (err) {
        return listPage(request, reply, { day: null, fromCase: null, typed: {}, error: `day: ${messageOf(err)}`, status: 400, account });
      }
    }
    const c = typeof q.case === 'string' && ID.test(q.case) ? await getCase(deps.db.knex, q.case) : null;
    const fromCase = c && DRIFT_CODES.has(c.code) ? c : null;
    return listPage(request, reply, { day, fromCase, typed: {}, error: null, status: 200, account });
  });

  app.post('/movements', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const form = (request.body ?? {}) as Record<string, unknown>;
    const typed: MovementFields = Object.fromEntries(
      FIELDS.flatMap((k) => (typeof form[k] === 'string' ? [[k, form[k] as string]] : [])),
    ) as MovementFields;
    const refuse = async (reason: string, typedAccount?: string) => {
      const caseId = typeof form.case === 'string' && ID.test(form.case) ? form.case : null;
      const c = caseId ? await getCase(deps.db.knex, caseId) : null;
      return listPage(request, reply, {
        day: null,
        fromCase: c && DRIFT_CODES.has(c.code) ? c : null,
        typed,
        error: `Not recorded: ${reason}.`,
        status: 400,
        typedAccount,
      });
    };
    // With several accounts the movement belongs to the account chosen in the form, never to a guessed one.
    let account: string | undefined;
    if (accountIds.length > 1) {
      const picked = typeof form.account === 'string' ? form.account : '';
      if (!accountIds.includes(picked))
        return refuse(picked === '' ? `account: required, choose from ${accountIds.join(', ')}` : accountProblem(picked), '');
      account = picked;
    }
    const r = await recordMovement(deps.db.knex, typed, { recordedBy: s.userName, source: 'console', at: deps.now() }, account);
    if (r.kind === 'refused') return refuse(r.reason, account);
    return reply.redirect(`/movements/${r.movement.id}`, 303);
  });

  app.get('/movements/:id', { config: { access: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const q = request.query as { resolved?: unknown };
    const movement = ID.test(id) ? await movementWithMatch(deps.db.knex, id) : null;
    if (!movement) return notFound(request, reply, 'No such movement');
    // ?resolved= comes from the approve answer's redirect, but a link can carry anything: name only drift
    // cases that are resolved, and only once the movement is approved.
    const asked = typeof q.resolved === 'string' && movement.approvedBy !== null ? q.resolved.split(',').filter((x) => ID.test(x)) : [];
    const cases = await Promise.all(asked.slice(0, 20).map((x) => getCase(deps.db.knex, x)));
    const resolvedCases = cases.flatMap((c) => (c && c.code === 'BALANCE_DRIFT' && c.state === 'resolved' ? [c.id] : []));
    const events = await movementEvents(deps.db.knex, id);
    return sendPage(reply, 200, movementPage(request.session!, { zone, movement, events, resolvedCases, error: null }));
  });

  app.post('/movements/:id/approve', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const { id } = request.params as { id: string };
    const before = ID.test(id) ? await movementWithMatch(deps.db.knex, id) : null;
    if (!before) return notFound(request, reply, 'No such movement');
    // A reference is unique per account: the movement's own account names it.
    const { outcome, resolvedCases } = await approveAndLink(deps.db.knex, before.reference, s.userName, deps.now(), lagMs, before.account);
    if (outcome.kind === 'approved')
      return reply.redirect(`/movements/${id}${resolvedCases.length ? `?resolved=${resolvedCases.join(',')}` : ''}`, 303);
    if (outcome.kind === 'not_found') return notFound(request, reply, 'No such movement');
    const error =
      outcome.kind === 'own'
        ? `Not approved: you recorded ${before.reference}; another finance user approves it (maker-checker).`
        : `Not approved: ${before.reference} is already approved, by ${outcome.movement.approvedBy}.`;
    const status = outcome.kind === 'own' ? 403 : 409;
    const [movement, events] = await Promise.all([movementWithMatch(deps.db.knex, id), movementEvents(deps.db.knex, id)]);
    return sendPage(reply, status, movementPage(s, { zone, movement: movement!, events, resolvedCases: [], error }));
  });
}
