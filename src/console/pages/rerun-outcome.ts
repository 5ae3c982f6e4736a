import type { ReportVersionFiles } from '../../db/report-days.ts';
import type { ChangedOrder, CurrencyMoney, RecordedOrder, VersionTally } from '../../db/version-diff.ts';
import type { Session } from '../auth/sessions.ts';
import { html, type Html } from '../../html/html.ts';
import { csrfField } from './layout.ts';
import { amount, count } from './format.ts';
import { orderHref } from './links.ts';

export interface RerunOutcome {
  version: ReportVersionFiles;
  previous: ReportVersionFiles | null;
  tally: VersionTally;
  previousTally: VersionTally | null;
  /** Per currency, the money at stake in the previous version and in this one; null when one of them did not record amounts. */
  money: CurrencyMoney[] | null;
  changed: { total: number; rows: ChangedOrder[] } | null;
  /** Why e-mailing is not possible here (no SMTP), or null. */
  sendRefusal: string | null;
  maySend: boolean;
  rerunId: string;
}

const side = (s: ChangedOrder['before']) => (s ? `${s.verdict}${s.codes.length ? ` ${s.codes.join(' ')}` : ''}` : 'not recorded');

/** A signed amount with its sign always shown ("+1,200.00", "−50.00"); empty for zero. */
function signed(value: string, currency: string): string {
  if (/^-?0*(\.0*)?$/.test(value)) return '';
  return value.startsWith('-') ? `−${amount(value.slice(1), currency)}` : `+${amount(value, currency)}`;
}

const riskOf = (s: RecordedOrder | null, currency: string | null) => (s?.atRisk && currency ? amount(s.atRisk, currency) : '');

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

/** Sending the version to accounting: first on the page, so a person who came to send it need not scroll. */
function accounting(s: Session, o: RerunOutcome): Html {
  const v = o.version;
  if (v.emailStatus === 'sent') return html`<p id="sent">v${v.version} was sent to accounting.</p>`;
  if (o.sendRefusal) return html`<p class="muted" id="send-refused">Cannot send from here: ${o.sendRefusal}</p>`;
  if (o.maySend)
    return html`<form class="inline" method="post" action="/reruns/${o.rerunId}/send" id="send">
      ${csrfField(s)}<button type="submit">Send v${v.version} to accounting</button>
    </form>`;
  return html`<p class="muted">Not sent to accounting yet (e-mail: ${v.emailStatus}).</p>`;
}

/** Per currency: orders with money at stake, the net difference and the amount at risk, before → after. */
function moneyTable(o: RerunOutcome): Html {
  const v = o.version;
  const p = o.previous;
  if (!o.money)
    return html`<p class="muted" id="money">
      Amounts not compared: ${p ? html`v${p.version} or v${v.version}` : html`v${v.version}`} was written before report versions recorded
      them.
    </p>`;
  if (o.money.length === 0)
    return html`<p id="money">No money at stake in ${p ? html`v${p.version} nor v${v.version}` : html`v${v.version}`}.</p>`;
  const was = (text: Html | string) => (p ? html`<td class="num">${text}</td>` : null);
  return html`<div class="table-wrap" id="money">
    <table>
      <thead>
        <tr>
          <th>currency</th>
          ${p ? html`<th class="num">at risk in v${p.version}</th>` : null}
          <th class="num">at risk in v${v.version}</th>
          ${p ? html`<th class="num">change</th>` : null} ${p ? html`<th class="num">net difference in v${p.version}</th>` : null}
          <th class="num">net difference in v${v.version}</th>
          ${p ? html`<th class="num">orders at stake in v${p.version}</th>` : null}
          <th class="num">orders at stake in v${v.version}</th>
        </tr>
      </thead>
      <tbody>
        ${o.money.map(
          (m) =>
            html`<tr>
              <td>${m.currency}</td>
              ${was(amount(m.atRiskBefore, m.currency))}
              <td class="num">${amount(m.atRiskAfter, m.currency)}</td>
              ${was(signed(m.atRiskChange, m.currency))} ${was(amount(m.differenceBefore, m.currency))}
              <td class="num">${amount(m.differenceAfter, m.currency)}</td>
              ${was(count(m.ordersBefore))}
              <td class="num">${count(m.ordersAfter)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function changedTable(o: RerunOutcome): Html {
  const v = o.version;
  const p = o.previous;
  if (!o.changed || !p) return html`<p class="muted">The first version of the day: nothing to compare against.</p>`;
  if (o.changed.total === 0) return html`<p id="changed">No order's verdict, codes or amounts changed since v${p.version}.</p>`;
  return html`<h2 id="changed">
      ${count(o.changed.total)} ${o.changed.total === 1 ? 'order' : 'orders'} changed
      <span class="muted"
        >largest change in money first${o.changed.total > o.changed.rows.length ? html`, the first ${o.changed.rows.length}` : null}</span
      >
    </h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>order</th>
            <th>direction</th>
            <th>currency</th>
            <th class="num">at risk in v${p.version}</th>
            <th class="num">at risk in v${v.version}</th>
            <th>in v${p.version}</th>
            <th>in v${v.version}</th>
          </tr>
        </thead>
        <tbody>
          ${o.changed.rows.map(
            (c) =>
              html`<tr>
                <td><a href="${orderHref(c.direction, c.orderId)}">${c.merchantRef ?? `${c.direction} ${c.orderId}`}</a></td>
                <td>${c.direction}</td>
                <td>${c.currency ?? ''}</td>
                <td class="num">${riskOf(c.before, c.currency)}</td>
                <td class="num">${riskOf(c.after, c.currency)}</td>
                <td>${side(c.before)}</td>
                <td>${side(c.after)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

/**
 * A finished rerun's report, in the order a finance team reads it: sending it to accounting, the
 * money per currency against the previous version, the orders that changed (largest in money
 * first), then the version's headline and its verdict and code counts.
 */
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
  return html`<h2>Report v${v.version}${p ? html` <span class="muted">against v${p.version}</span>` : null}</h2>
    ${accounting(s, o)}
    <h2>Money at stake, per currency</h2>
    ${moneyTable(o)} ${changedTable(o)}
    <h2>Verdicts and codes</h2>
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
    </div>`;
}
