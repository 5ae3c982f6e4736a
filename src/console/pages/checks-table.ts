import type { StoredReconItem } from '../../db/items.ts';
import { html, type Html } from '../../html/html.ts';
import { stateBadge } from './layout.ts';
import { amount, at } from './format.ts';

/** Every check of one order, oldest first: the case page and the order page show the same table. */
export function checksTable(checks: readonly StoredReconItem[], zone: string): Html {
  return html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          <th>checked</th>
          <th class="num">run</th>
          <th>verdict</th>
          <th>codes</th>
          <th>provider status</th>
          <th class="num">provider amount</th>
          <th class="num">provider fee</th>
          <th>reason</th>
        </tr>
      </thead>
      <tbody>
        ${checks.map(
          (i) =>
            html`<tr>
              <td>${at(i.checkedAt, zone)}</td>
              <td class="num">${i.runId}</td>
              <td>${stateBadge(i.verdict)}</td>
              <td>${i.codes.join(' ')}</td>
              <td>${i.providerStatus ?? ''}</td>
              <td class="num">${amount(i.providerAmount, i.currency)}</td>
              <td class="num">${amount(i.providerFee, i.currency)}</td>
              <td class="wrap">${i.reason}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
