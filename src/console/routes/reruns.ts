import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { enqueueRerun, findRerun, listReruns, rerunReconcileProgress, type RerunRow } from '../../db/console-reruns.ts';
import { recordAction } from '../../db/console-actions.ts';
import { businessDay, dayIsPartial } from '../../report/date.ts';
import { scrub, secretValues } from '../../config/redact.ts';
import { html, type Html } from '../html.ts';
import { page, stateBadge } from '../pages/layout.ts';
import { at, count } from '../pages/format.ts';

export function registerRerunRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const secrets = secretValues(deps.config);
  const errorText = (r: RerunRow) => (r.error ? scrub(r.error, secrets) : null);

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

  app.post('/reruns', { config: { access: 'rerun' } }, async (request, reply) => {
    const s = request.session!;
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
    const id = (request.params as { id: string }).id;
    const r = /^[1-9]\d{0,17}$/.test(id) ? await findRerun(deps.db.knex, id) : null;
    if (!r) return sendPage(reply, 404, page({ title: 'Not found', session: s, nav: 'reruns' }, html`<h1>No such rerun</h1>`));
    const progress = r.state === 'running' ? await rerunReconcileProgress(deps.db.knex, r.id) : null;
    const active = r.state === 'queued' || r.state === 'running';
    const body = html`<h1>Rerun #${r.id} of <a href="/days/${r.businessDate}">${r.businessDate}</a> ${stateBadge(r.state)}</h1>
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
        <dd>${r.reportVersion === null ? '-' : html`<a href="/days/${r.businessDate}">v${r.reportVersion}</a>`}</dd>
        ${
          r.error
            ? html`<dt>error</dt>
                <dd class="error">${errorText(r)}</dd>`
            : null
        }
      </dl>
      ${active ? html`<p class="muted">This page reloads every 2 seconds until the rerun ends.</p>` : null}`;
    return sendPage(reply, 200, page({ title: `Rerun #${r.id}`, session: s, nav: 'reruns', refreshSeconds: active ? 2 : undefined }, body));
  });
}

function stepText(r: RerunRow, progress: { selected: number; checked: number; runId: string } | null): Html | string {
  if (r.state === 'queued') return 'waiting in the queue';
  if (r.state === 'completed') return 'done: reconciled and reported';
  if (r.state === 'failed') return 'failed';
  if (r.phase === 'report') return 'writing the report';
  if (!progress) return 'reconciling: waiting for the reconcile lock';
  return html`reconciling (run ${progress.runId}): ${count(progress.checked)} of ${count(progress.selected)} orders checked
    <progress max="${Math.max(progress.selected, 1)}" value="${progress.checked}"></progress>`;
}
