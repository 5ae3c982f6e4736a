import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { enqueueRerun, findRerun, listReruns, rerunReconcileProgress, type RerunRow } from '../../db/console-reruns.ts';
import { recordAction } from '../../db/console-actions.ts';
import { businessDay, dayIsPartial } from '../../report/date.ts';
import { scrub, secretValues } from '../../config/redact.ts';
import { html, type Html } from '../../html/html.ts';
import { page, stateBadge } from '../pages/layout.ts';
import { at, count } from '../pages/format.ts';
import { rerunOutcome, type RerunOutcome } from '../pages/rerun-outcome.ts';
import { rerunRefusal, sendRefusal } from '../can-do.ts';
import { versionsOfDay } from '../../db/report-days.ts';
import { changedOrders, versionMoney, versionRecordedMoney, versionTally } from '../../db/version-diff.ts';
import { createMailer } from '../../notify/mailer.ts';
import { sendReportEmail } from '../../report/email/send.ts';
import { can } from '../auth/roles.ts';
import type { Session } from '../auth/sessions.ts';
import type { FastifyReply } from 'fastify';

export function registerRerunRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const secrets = secretValues(deps.config);
  const errorText = (r: RerunRow) => (r.error ? scrub(r.error, secrets) : null);
  const rerunOf = async (id: string) => (/^[1-9]\d{0,17}$/.test(id) ? findRerun(deps.db.knex, id) : null);

  app.get('/reruns', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const reruns = await listReruns(deps.db.knex);
    const active = reruns.some((r) => r.state === 'queued' || r.state === 'running');
    const body = html`<h1>Reruns</h1>
      <p class="muted">
        A rerun reconciles every order of a business day again, then writes the day's report (a new version only when something changed).
        Reruns wait in a queue and run one at a time in the console's worker, under the same locks as the scheduled jobs.
      </p>
      ${
        reruns.length === 0
          ? html`<p>No reruns yet. Start one from a <a href="/days">business day</a>.</p>`
          : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th class="num">#</th>
                    <th>business day</th>
                    <th>state</th>
                    <th>asked by</th>
                    <th>asked</th>
                    <th>finished</th>
                    <th class="num">report version</th>
                    <th>error</th>
                  </tr>
                </thead>
                <tbody>
                  ${reruns.map(
                    (r) =>
                      html`<tr>
                        <td class="num"><a href="/reruns/${r.id}">${r.id}</a></td>
                        <td><a href="/days/${r.businessDate}">${r.businessDate}</a></td>
                        <td>
                          ${stateBadge(r.state)}${r.state === 'running' && r.phase ? html` <span class="muted">${r.phase}</span>` : null}
                        </td>
                        <td>${r.requestedBy}</td>
                        <td>${at(r.requestedAt, zone)}</td>
                        <td>${at(r.finishedAt, zone)}</td>
                        <td class="num">${r.reportVersion === null ? '' : html`v${r.reportVersion}`}</td>
                        <td class="wrap">${errorText(r)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }`;
    return sendPage(reply, 200, page({ title: 'Reruns', session: s, nav: 'reruns', refreshSeconds: active ? 3 : undefined }, body));
  });

  /** Per currency money of the version against the previous one; null when either did not record amounts (before sql/051). */
  const moneyOf = async (versionId: string, previousId: string | null) => {
    for (const id of [versionId, previousId]) if (id !== null && !(await versionRecordedMoney(deps.db.knex, id))) return null;
    return versionMoney(deps.db.knex, previousId, versionId);
  };

  /** The finished rerun's version against the one before it, and whether it can be sent. */
  const outcomeOf = async (s: Session, r: RerunRow): Promise<RerunOutcome | null> => {
    if (r.state !== 'completed' || r.reportVersion === null) return null;
    const versions = await versionsOfDay(deps.db.knex, r.businessDate);
    const version = versions.find((v) => v.version === r.reportVersion);
    // A version the retention removed has no recorded orders left to tally (its day page says so).
    if (!version || version.removedAt) return null;
    // Nor has a removed previous one: no comparison rather than "every order changed".
    const previous = versions.find((v) => v.version < version.version && !v.removedAt) ?? null;
    return {
      version,
      previous,
      tally: await versionTally(deps.db.knex, version.id),
      previousTally: previous ? await versionTally(deps.db.knex, previous.id) : null,
      money: await moneyOf(version.id, previous?.id ?? null),
      changed: previous ? await changedOrders(deps.db.knex, previous.id, version.id, CHANGED_SHOWN) : null,
      sendRefusal: sendRefusal(deps.config),
      maySend: can(s.role, 'rerun'),
      rerunId: r.id,
    };
  };

  const rerunPage = async (reply: FastifyReply, s: Session, r: RerunRow, status = 200, message: Html | null = null) => {
    const progress = r.state === 'running' ? await rerunReconcileProgress(deps.db.knex, r.id) : null;
    const outcome = await outcomeOf(s, r);
    const active = r.state === 'queued' || r.state === 'running';
    const body = html`<h1>Rerun #${r.id} of <a href="/days/${r.businessDate}">${r.businessDate}</a> ${stateBadge(r.state)}</h1>
      ${message}
      <dl class="facts">
        <dt>asked by</dt>
        <dd>${r.requestedBy}, ${at(r.requestedAt, zone)}</dd>
        <dt>started</dt>
        <dd>${at(r.startedAt, zone)}</dd>
        <dt>finished</dt>
        <dd>${at(r.finishedAt, zone)}</dd>
        <dt>step</dt>
        <dd id="step">${stepText(r, progress)}</dd>
        <dt>reconcile run ids</dt>
        <dd>${r.reconcileRunIds.join(', ') || '-'}</dd>
        <dt>report version</dt>
        <dd>${r.reportVersion === null ? '-' : html`<a href="/days/${r.businessDate}#v${r.reportVersion}">v${r.reportVersion}</a>`}</dd>
        ${
          r.error
            ? html`<dt>error</dt>
                <dd class="error">${errorText(r)}</dd>`
            : null
        }
      </dl>
      ${outcome ? rerunOutcome(s, outcome) : null}
      ${active ? html`<p class="muted">This page reloads every 2 seconds until the rerun ends.</p>` : null}`;
    return sendPage(
      reply,
      status,
      page({ title: `Rerun #${r.id}`, session: s, nav: 'reruns', refreshSeconds: active ? 2 : undefined }, body),
    );
  };

  app.post('/reruns', { config: { access: 'rerun' } }, async (request, reply) => {
    const s = request.session!;
    const cannot = rerunRefusal(deps.config);
    if (cannot)
      return sendPage(
        reply,
        409,
        page(
          { title: 'Cannot rerun', session: s, nav: 'reruns' },
          html`<h1>Cannot queue the rerun</h1>
            <p class="error">${cannot}</p>`,
        ),
      );
    const raw = (request.body as Record<string, unknown>).date;
    let date: string;
    try {
      // The checks (and messages) of `payrecon report --date`: a rerun ends in that report, so a day
      // it would refuse (not begun yet, out of range) is refused here rather than failing in the queue.
      const day = businessDay(typeof raw === 'string' ? raw : '', zone);
      dayIsPartial(day, deps.now());
      date = day.date;
    } catch (err) {
      return sendPage(
        reply,
        400,
        page(
          { title: 'Bad date', session: s, nav: 'reruns' },
          html`<h1>Cannot queue the rerun</h1>
            <p class="error">date: ${(err as Error).message}</p>`,
        ),
      );
    }
    const now = deps.now();
    const { id, queued } = await enqueueRerun(deps.db.knex, { businessDate: date, userId: s.userId, now });
    await recordAction(deps.db.knex, {
      at: now,
      actor: s.userName,
      action: queued ? 'rerun-queued' : 'rerun-already-queued',
      target: date,
      address: request.ip,
      detail: { rerun: id },
    });
    deps.onRerunQueued?.();
    return reply.redirect(`/reruns/${id}`, 303);
  });

  app.get('/reruns/:id', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const r = await rerunOf((request.params as { id: string }).id);
    if (!r) return sendPage(reply, 404, page({ title: 'Not found', session: s, nav: 'reruns' }, html`<h1>No such rerun</h1>`));
    return rerunPage(reply, s, r);
  });

  /** E-mails the rerun's version to accounting, once (sendReportEmail refuses a sent version); recorded. */
  app.post('/reruns/:id/send', { config: { access: 'rerun' } }, async (request, reply) => {
    const s = request.session!;
    const r = await rerunOf((request.params as { id: string }).id);
    if (!r) return sendPage(reply, 404, page({ title: 'Not found', session: s, nav: 'reruns' }, html`<h1>No such rerun</h1>`));
    const refuse = (status: number, text: string) => rerunPage(reply, s, r, status, html`<p class="error" role="alert">${text}</p>`);
    if (r.state !== 'completed' || r.reportVersion === null) return refuse(409, 'This rerun has no finished report version to send.');
    const cannot = sendRefusal(deps.config);
    if (cannot) return refuse(409, `Cannot send: ${cannot}`);
    const mailer = createMailer(deps.config);
    let result;
    try {
      result = await sendReportEmail(deps.db, mailer, { businessDate: r.businessDate, version: r.reportVersion, now: deps.now(), secrets });
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

const CHANGED_SHOWN = 200;

function stepText(r: RerunRow, progress: { selected: number; checked: number; runId: string } | null): Html | string {
  if (r.state === 'queued') return 'waiting in the queue';
  if (r.state === 'completed') return 'done: reconciled and reported';
  if (r.state === 'failed') return 'failed';
  if (r.phase === 'report') return 'writing the report';
  if (!progress) return 'reconciling: waiting for the reconcile lock';
  return html`reconciling (run ${progress.runId}): ${count(progress.checked)} of ${count(progress.selected)} orders checked
    <progress max="${Math.max(progress.selected, 1)}" value="${progress.checked}"></progress>`;
}
