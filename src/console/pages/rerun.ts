import type { RerunRow } from '../../db/console-reruns.ts';
import type { Session } from '../auth/sessions.ts';
import { html, type Html } from '../../html/html.ts';
import { page, stateBadge } from './layout.ts';
import { at, count } from './format.ts';
import { rerunOutcome, type RerunOutcome } from './rerun-outcome.ts';

/** The reruns pages' shared facts: the time zone and a rerun's error as it may be shown (secrets scrubbed). */
export interface RerunPageContext {
  zone: string;
  errorText: (r: RerunRow) => string | null;
  /** Several accounts are configured: a rerun is one account's day, named and linked to its page; with one, pages as before. */
  perAccount: boolean;
}

/** The rerun's day page: with several accounts its account's page, else the day's. */
const dayHref = (r: RerunRow, ctx: RerunPageContext): string =>
  ctx.perAccount ? `/days/${r.businessDate}?account=${encodeURIComponent(r.account)}` : `/days/${r.businessDate}`;
const ofAccount = (r: RerunRow, ctx: RerunPageContext): Html | null => (ctx.perAccount ? html`, account ${r.account}` : null);

/** The queue of reruns, newest first; reloads while one waits or runs. */
export function rerunsPage(s: Session, reruns: readonly RerunRow[], ctx: RerunPageContext): string {
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
                      <td><a href="${dayHref(r, ctx)}">${r.businessDate}</a>${ofAccount(r, ctx)}</td>
                      <td>
                        ${stateBadge(r.state)}${r.state === 'running' && r.phase ? html` <span class="muted">${r.phase}</span>` : null}
                      </td>
                      <td>${r.requestedBy}</td>
                      <td>${at(r.requestedAt, ctx.zone)}</td>
                      <td>${at(r.finishedAt, ctx.zone)}</td>
                      <td class="num">${r.reportVersion === null ? '' : html`v${r.reportVersion}`}</td>
                      <td class="wrap">${ctx.errorText(r)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }`;
  return page({ title: 'Reruns', session: s, nav: 'reruns', refreshSeconds: active ? 3 : undefined }, body);
}

export interface ReconcileProgress {
  selected: number;
  checked: number;
  runId: string;
}

/** One rerun: its facts and step, and once finished the outcome (money first); reloads while it waits or runs. */
export function rerunPage(
  s: Session,
  r: RerunRow,
  ctx: RerunPageContext,
  view: { progress: ReconcileProgress | null; outcome: RerunOutcome | null; message: Html | null },
): string {
  const active = r.state === 'queued' || r.state === 'running';
  const body = html`<h1>Rerun #${r.id} of <a href="${dayHref(r, ctx)}">${r.businessDate}</a>${ofAccount(r, ctx)} ${stateBadge(r.state)}</h1>
    ${view.message}
    <dl class="facts">
      <dt>asked by</dt>
      <dd>${r.requestedBy}, ${at(r.requestedAt, ctx.zone)}</dd>
      <dt>started</dt>
      <dd>${at(r.startedAt, ctx.zone)}</dd>
      <dt>finished</dt>
      <dd>${at(r.finishedAt, ctx.zone)}</dd>
      <dt>step</dt>
      <dd id="step">${stepText(r, view.progress)}</dd>
      <dt>reconcile run ids</dt>
      <dd>${r.reconcileRunIds.join(', ') || '-'}</dd>
      <dt>report version</dt>
      <dd>${r.reportVersion === null ? '-' : html`<a href="${dayHref(r, ctx)}#v${r.reportVersion}">v${r.reportVersion}</a>`}</dd>
      ${
        r.error
          ? html`<dt>error</dt>
              <dd class="error">${ctx.errorText(r)}</dd>`
          : null
      }
    </dl>
    ${view.outcome ? rerunOutcome(s, view.outcome) : null}
    ${active ? html`<p class="muted">This page reloads every 2 seconds until the rerun ends.</p>` : null}`;
  return page({ title: `Rerun #${r.id}`, session: s, nav: 'reruns', refreshSeconds: active ? 2 : undefined }, body);
}

/** A rerun that could not be queued, and why. */
export function rerunRefusedPage(s: Session, title: string, reason: string): string {
  return page(
    { title, session: s, nav: 'reruns' },
    html`<h1>Cannot queue the rerun</h1>
      <p class="error">${reason}</p>`,
  );
}

export function noSuchRerun(s: Session): string {
  return page({ title: 'Not found', session: s, nav: 'reruns' }, html`<h1>No such rerun</h1>`);
}

function stepText(r: RerunRow, progress: ReconcileProgress | null): Html | string {
  if (r.state === 'queued') return 'waiting in the queue';
  if (r.state === 'completed') return 'done: reconciled and reported';
  if (r.state === 'failed') return 'failed';
  if (r.phase === 'report') return 'writing the report';
  if (!progress) return 'reconciling: waiting for the reconcile lock';
  return html`reconciling (run ${progress.runId}): ${count(progress.checked)} of ${count(progress.selected)} orders checked
    <progress max="${Math.max(progress.selected, 1)}" value="${progress.checked}"></progress>`;
}
