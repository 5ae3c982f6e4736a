import type { ReportVersionFiles } from '../../db/report-days.ts';
import type { ChangedOrder, VersionTally } from '../../db/version-diff.ts';
import type { Session } from '../auth/sessions.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField } from './layout.ts';
import { count } from './format.ts';
import { orderHref } from './links.ts';

export interface RerunOutcome {
  version: ReportVersionFiles;
  previous: ReportVersionFiles | null;
  tally: VersionTally;
  previousTally: VersionTally | null;
  changed: { total: number; rows: ChangedOrder[] } | null;
  /** Why e-mailing is not possible here (no SMTP), or null. */
  sendRefusal: string | null;
  maySend: boolean;
  rerunId: string;
}

const side = (s: ChangedOrder['before']) => (s ? `${s.verdict}${s.codes.length ? ` ${s.codes.join(' ')}` : ''}` : 'not recorded');

function tallyRows(now: Record<string, number>, before: Record<string, number> | null): Html[] {
  const keys = [...new Set([...Object.keys(now), ...Object.keys(before ?? {})])].sort();
  return keys.map((k) => {
    const a = now[k] ?? 0;
    const b = before ? (before[k] ?? 0) : null;
    const delta = b === null ? '' : a - b === 0 ? '' : a - b > 0 ? `+${count(a - b)}` : `−${count(b - a)}`;
    return html`<tr>
      <td>${k}</td>
      ${before ? html`<td class="num">${count(b ?? 0)}</td>` : null}
      <td class="num">${count(a)}</td>
      ${before ? html`<td class="num">${delta}</td>` : null}
    </tr>`;
  });
}

/** A finished rerun's report: the version's headline, what changed against the previous one, and sending it. */
export function rerunOutcome(s: Session, o: RerunOutcome): Html {
  const v = o.version;
  const p = o.previous;
  const head = (label: string) =>
    html`<tr>
      <th>${label}</th>
      ${p ? html`<th class="num">v${p.version}</th>` : null}
      <th class="num">v${v.version}</th>
      ${p ? html`<th class="num">change</th>` : null}
    </tr>`;
  const sent = v.emailStatus === 'sent';
  return html`<h2>Report v${v.version}${p ? html` <span class="muted">against v${p.version}</span>` : null}</h2>
    <div class="headline" id="headline">
      ${(v.manifest.headline as string | undefined) ?? html`<span class="muted">(no headline)</span>`}
    </div>
    <div class="grid2">
      <div class="table-wrap">
        <table>
          <thead>
            ${head('verdict')}
          </thead>
          <tbody>
            ${tallyRows(o.tally.verdicts, o.previousTally?.verdicts ?? null)}
          </tbody>
        </table>
      </div>
      <div class="table-wrap">
        <table>
          <thead>
            ${head('code')}
          </thead>
          <tbody>
            ${tallyRows(o.tally.codes, o.previousTally?.codes ?? null)}
          </tbody>
        </table>
      </div>
    </div>
    ${
      !o.changed
        ? html`<p class="muted">The first version of the day: nothing to compare against.</p>`
        : o.changed.total === 0
          ? html`<p id="changed">No order's verdict or codes changed since v${p!.version}.</p>`
          : html`<h2 id="changed">
                ${count(o.changed.total)} ${o.changed.total === 1 ? 'order' : 'orders'} changed
                ${o.changed.total > o.changed.rows.length ? html`<span class="muted">(the first ${o.changed.rows.length})</span>` : null}
              </h2>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>order</th>
                      <th>direction</th>
                      <th>in v${p!.version}</th>
                      <th>in v${v.version}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${o.changed.rows.map(
                      (c) =>
                        html`<tr>
                          <td><a href="${orderHref(c.direction, c.orderId)}">${c.merchantRef ?? `${c.direction} ${c.orderId}`}</a></td>
                          <td>${c.direction}</td>
                          <td>${side(c.before)}</td>
                          <td>${side(c.after)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
    }
    <h2>Accounting</h2>
    ${
      sent
        ? html`<p id="sent">v${v.version} was sent to accounting.</p>`
        : o.sendRefusal
          ? html`<p class="muted" id="send-refused">Cannot send from here: ${o.sendRefusal}</p>`
          : o.maySend
            ? html`<form class="inline" method="post" action="/reruns/${o.rerunId}/send">
                ${csrfField(s)}<button type="submit">Send v${v.version} to accounting</button>
              </form>`
            : html`<p class="muted">Not sent to accounting yet (e-mail: ${v.emailStatus}).</p>`
    }`;
}
