import type { OrderRow } from '../../db/orders.ts';
import type { StoredReconItem } from '../../db/items.ts';
import type { OrderCase, OrderInVersion, OrderNotification } from '../../db/order-lookup.ts';
import { html, type Html } from '../../html/html.ts';
import { stateBadge } from './layout.ts';
import { amount, at, count, dataTable } from './format.ts';
import { caseLink } from './links.ts';
import { checksTable } from './checks-table.ts';
import { DEFAULT_ACCOUNT_ID } from '../../domain/account.ts';

export interface OrderPageData {
  order: OrderRow;
  /** The order's account; named on the page unless it is the single account's "default". */
  account: string | null;
  checks: StoredReconItem[];
  notifications: OrderNotification[];
  cases: OrderCase[];
  versions: OrderInVersion[];
  zone: string;
}

/** The order page: both sides, every check, the notifications, its cases and the report versions that recorded it. */
export function orderPageBody(d: OrderPageData): Html {
  const o = d.order;
  const cur = o.currency;
  const last = d.checks[d.checks.length - 1];
  // The merchant's record as it is now; the provider as its last answer said.
  const sides: Array<[string, string | null, string | null]> = [
    ['status', o.status, last?.providerStatus ?? null],
    ['amount', amount(o.amount, cur), amount(last?.providerAmount, cur)],
    ...(o.direction === 'payment'
      ? [['paid amount', amount(o.paidAmount, cur), amount(last?.providerPaidAmount, cur)] as [string, string, string]]
      : []),
    ['fee', amount(o.fee, cur), amount(last?.providerFee, cur)],
    ...(o.direction === 'payout' ? [['UTR', o.utr, last?.providerUtr ?? null] as [string, string | null, string | null]] : []),
  ];
  return html`<h1>${o.direction} ${o.merchantRef}</h1>
    <dl class="facts">
      ${
        d.account === null || d.account === DEFAULT_ACCOUNT_ID
          ? null
          : html`<dt>account</dt>
              <dd>${d.account}</dd>`
      }
      <dt>merchant ref</dt>
      <dd>${o.merchantRef}</dd>
      <dt>transaction ref</dt>
      <dd>${o.transactionRef}</dd>
      <dt>currency, method</dt>
      <dd>${o.currency} ${o.method}</dd>
      <dt>created</dt>
      <dd>${at(o.createdAt, d.zone)}</dd>
      <dt>final since</dt>
      <dd>${at(o.finalizedAt, d.zone)}</dd>
      <dt>checked</dt>
      <dd>${count(o.checkCount)} ${o.checkCount === 1 ? 'time' : 'times'}, last ${at(o.lastCheckedAt, d.zone)}</dd>
    </dl>
    <h2>Merchant's record against the provider <span class="muted">(provider: its last answer, ${at(last?.checkedAt, d.zone)})</span></h2>
    ${dataTable(
      html`<th></th>
        <th class="num">merchant's record</th>
        <th class="num">provider (last answer)</th>`,
      sides.map(
        ([k, l, p]) =>
          html`<tr>
            <td>${k}</td>
            <td class="num">${l ?? ''}</td>
            <td class="num">${last ? (p ?? '') : html`<span class="muted">never checked</span>`}</td>
          </tr>`,
      ),
    )}
    <h2>Cases</h2>
    ${
      d.cases.length
        ? html`<ul>
            ${d.cases.map(
              (c) =>
                html`<li>
                  ${caseLink(c.id, `Case ${c.id}: ${c.code}`)}
                  ${stateBadge(c.state)}${c.resolution ? html` <span class="muted">${c.resolution}</span>` : null}
                </li>`,
            )}
          </ul>`
        : html`<p class="muted">No case about this order.</p>`
    }
    <h2>Checks</h2>
    ${d.checks.length ? checksTable(d.checks, d.zone) : html`<p class="muted">Never checked.</p>`}
    <h2>Webhook notifications</h2>
    ${
      d.notifications.length
        ? dataTable(
            html`<th>received</th>
              <th>status</th>
              <th class="num">amount</th>
              <th class="num">fee</th>
              <th class="num">deliveries</th>
              <th>confirmation</th>`,
            d.notifications.map(
              (n) =>
                html`<tr>
                  <td>${at(n.receivedAt, d.zone)}</td>
                  <td>${n.status ?? ''}</td>
                  <td class="num">${amount(n.amount, cur)}</td>
                  <td class="num">${amount(n.fee, cur)}</td>
                  <td class="num">${n.deliveries}</td>
                  <td class="wrap">${n.confirmation}${n.confirmationNote ? `: ${n.confirmationNote}` : ''}</td>
                </tr>`,
            ),
          )
        : html`<p class="muted">No notification received.</p>`
    }
    <h2>Report versions</h2>
    ${
      d.versions.length
        ? dataTable(
            html`<th>business day</th>
              <th>version</th>
              <th>verdict</th>
              <th>codes</th>`,
            d.versions.map(
              (v) =>
                html`<tr>
                  <td><a href="/days/${v.businessDate}">${v.businessDate}</a></td>
                  <td><a href="/days/${v.businessDate}#v${v.version}">v${v.version}</a></td>
                  <td>${stateBadge(v.verdict)}</td>
                  <td>${v.codes.join(' ')}</td>
                </tr>`,
            ),
          )
        : html`<p class="muted">No report version recorded this order yet.</p>`
    }`;
}
