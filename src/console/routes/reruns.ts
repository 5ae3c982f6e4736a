import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { enqueueRerun, findRerun, listReruns, type RerunRow } from '../../db/console-reruns.ts';
import { recordAction } from '../../db/console-actions.ts';
import { businessDay, dayIsPartial } from '../../report/date.ts';
import { scrub, secretValues } from '../../config/redact.ts';
import { html } from '../../html/html.ts';
import { rerunRefusal, sendRefusal } from '../can-do.ts';
import { createMailer } from '../../notify/mailer.ts';
import { sendReportEmail } from '../../report/email/send.ts';
import { noSuchRerun, rerunRefusedPage, rerunsPage, type RerunPageContext } from '../pages/rerun.ts';
import { rerunView } from './rerun-view.ts';
import { messageOf } from '../../domain/errors.ts';
import { DEFAULT_ACCOUNT_ID } from '../../domain/account.ts';
import { consoleAccountIds } from './account-choice.ts';
import { configuredAccounts, reportRecipientsOf } from '../../config/accounts.ts';

/** The reruns area, by route group: the queue (list, queue one), one rerun (its page, sending its version). */
export function registerRerunRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const secrets = secretValues(deps.config);
  const ctx: RerunPageContext = {
    zone: deps.config.REPORT_TIMEZONE,
    errorText: (r) => (r.error ? scrub(r.error, secrets) : null),
    perAccount: consoleAccountIds(deps.config).length > 0,
  };
  registerRerunQueueRoutes(app, deps, ctx);
  registerRerunPageRoutes(app, deps, ctx, secrets);
}

function registerRerunQueueRoutes(app: FastifyInstance, deps: ConsoleDeps, ctx: RerunPageContext): void {
  const accountIds = consoleAccountIds(deps.config);
  // With several accounts a rerun is one account's day: the form names it; with one, none is posted ('default').
  const accountOf = (body: Record<string, unknown>): { account: string } | { problem: string } => {
    if (accountIds.length === 0) return { account: DEFAULT_ACCOUNT_ID };
    const raw = body.account;
    if (typeof raw === 'string' && accountIds.includes(raw)) return { account: raw };
    const named = typeof raw === 'string' && raw !== '' ? `${JSON.stringify(raw.slice(0, 40))} is not a configured account` : 'required';
    return { problem: `account: ${named}; choose from ${accountIds.join(', ')}` };
  };

  app.get('/reruns', { config: { access: 'read' } }, async (request, reply) =>
    sendPage(reply, 200, rerunsPage(request.session!, await listReruns(deps.db.knex), ctx)),
  );

  app.post('/reruns', { config: { access: 'rerun' } }, async (request, reply) => {
    const s = request.session!;
    const cannot = rerunRefusal(deps.config);
    if (cannot) return sendPage(reply, 409, rerunRefusedPage(s, 'Cannot rerun', cannot));
    const body = request.body as Record<string, unknown>;
    const raw = body.date;
    let date: string;
    try {
      // The checks (and messages) of `payrecon report --date`: a rerun ends in that report, so a day
      // it would refuse (not begun yet, out of range) is refused here rather than failing in the queue.
      const day = businessDay(typeof raw === 'string' ? raw : '', ctx.zone);
      dayIsPartial(day, deps.now());
      date = day.date;
    } catch (err) {
      return sendPage(reply, 400, rerunRefusedPage(s, 'Bad date', `date: ${messageOf(err)}`));
    }
    const chosen = accountOf(body);
    if ('problem' in chosen) return sendPage(reply, 400, rerunRefusedPage(s, 'Bad account', chosen.problem));
    const { account } = chosen;
    const now = deps.now();
    const { id, queued } = await enqueueRerun(deps.db.knex, { businessDate: date, account, userId: s.userId, now });
    await recordAction(deps.db.knex, {
      at: now,
      actor: s.userName,
      action: queued ? 'rerun-queued' : 'rerun-already-queued',
      target: date,
      address: request.ip,
      detail: accountIds.length > 0 ? { rerun: id, account } : { rerun: id },
    });
    deps.onRerunQueued?.();
    return reply.redirect(`/reruns/${id}`, 303);
  });
}

function registerRerunPageRoutes(app: FastifyInstance, deps: ConsoleDeps, ctx: RerunPageContext, secrets: readonly string[]): void {
  const rerunOf = async (id: string): Promise<RerunRow | null> => (/^[1-9]\d{0,17}$/.test(id) ? findRerun(deps.db.knex, id) : null);

  app.get('/reruns/:id', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const r = await rerunOf((request.params as { id: string }).id);
    if (!r) return sendPage(reply, 404, noSuchRerun(s));
    return sendPage(reply, 200, await rerunView(deps, s, r, ctx));
  });

  /** E-mails the rerun's version to accounting, once (sendReportEmail refuses a sent version); recorded. */
  app.post('/reruns/:id/send', { config: { access: 'rerun' } }, async (request, reply) => {
    const s = request.session!;
    const r = await rerunOf((request.params as { id: string }).id);
    if (!r) return sendPage(reply, 404, noSuchRerun(s));
    const refuse = async (status: number, text: string) =>
      sendPage(reply, status, await rerunView(deps, s, r, ctx, html`<p class="error" role="alert">${text}</p>`));
    if (r.state !== 'completed' || r.reportVersion === null) return refuse(409, 'This rerun has no finished report version to send.');
    // With several accounts the version goes to its account's recipients (else REPORT_EMAIL_TO), as `report --account` sends it.
    let to: readonly string[] | undefined;
    if (ctx.perAccount) {
      const account = configuredAccounts(deps.config).find((a) => a.id === r.account);
      if (!account) return refuse(409, `Cannot send: account ${r.account} is no longer configured.`);
      to = reportRecipientsOf(account, deps.config);
    }
    const cannot = sendRefusal(deps.config, to);
    if (cannot) return refuse(409, `Cannot send: ${cannot}`);
    const mailer = createMailer(deps.config);
    let result;
    try {
      // The rerun's account's version ('default' with one account).
      result = await sendReportEmail(deps.db, mailer, {
        businessDate: r.businessDate,
        version: r.reportVersion,
        account: r.account,
        ...(to ? { to } : {}),
        now: deps.now(),
        secrets,
      });
    } finally {
      mailer.close();
    }
    await recordAction(deps.db.knex, {
      at: deps.now(),
      actor: s.userName,
      action: `report-email-${result.status}`,
      target: `${r.businessDate} v${r.reportVersion}`,
      address: request.ip,
      detail: { rerun: r.id, versionId: result.versionId },
    });
    if (result.status === 'sent') return reply.redirect(`/reruns/${r.id}`, 303);
    if (result.status === 'already_sent') return refuse(409, `v${r.reportVersion} was already sent to accounting; it is not sent twice.`);
    if (result.status === 'busy') return refuse(409, 'Another process is sending this version right now; reload in a moment.');
    if (result.status === 'removed') return refuse(410, `Not sent: ${result.message}.`);
    return refuse(
      502,
      `The mail server did not take it: ${scrub(result.error, secrets)}. It stays pending and is retried by the next report run.`,
    );
  });
}
