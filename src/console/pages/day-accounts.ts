import { html } from '../../html/html.ts';
import type { DayAccountRow } from '../../db/day-accounts.ts';
import { Decimal } from '../../money/decimal.ts';
import type { Session } from '../auth/sessions.ts';
import { amount, count, dataTable } from './format.ts';
import { page } from './layout.ts';

export interface DayAccountsData {
  session: Session;
  date: string;
  zone: string;
  rows: readonly DayAccountRow[];
}

/** A USDT figure for reading: 2 decimals, half-up, by decimal arithmetic. */
function usdt(value: Decimal): string {
  return count(value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2));
}

/** USDT at risk per account, in the rows' account order, and overall. */
function usdtTotals(rows: readonly DayAccountRow[]): { perAccount: Map<string, Decimal>; overall: Decimal } {
  const perAccount = new Map<string, Decimal>();
  let overall = new Decimal(0);
  for (const r of rows) {
    const v = new Decimal(r.atRiskUsdt);
    perAccount.set(r.accountId, (perAccount.get(r.accountId) ?? new Decimal(0)).plus(v));
    overall = overall.plus(v);
  }
  return { perAccount, overall };
}

/** /days/:date/accounts: one business day across every account, from the database. */
export function dayAccountsPage({ session: s, date, zone, rows }: DayAccountsData): string {
  const totals = usdtTotals(rows);
  const unpriced = rows.reduce((n, r) => n + r.unpriced, 0);
  const body = html`<h1>${date} by account</h1>
    <p class="muted">
      Orders created on ${date} (${zone}) per account and currency, as their newest checks left them; at risk is the money of their open and
      acknowledged cases. <a href="/days/${date}">The day's report</a>.
    </p>
    ${
      rows.length === 0
        ? html`<p>No orders on this day.</p>`
        : html`${dataTable(
              html`<th>account</th>
                <th>currency</th>
                <th class="num">orders checked</th>
                <th class="num">mismatches</th>
                <th class="num">amount</th>
                <th class="num">open at risk</th>
                <th class="num">open at risk (USDT)</th>`,
              rows.map(
                (r) =>
                  html`<tr>
                    <td><a href="/days/${date}?account=${encodeURIComponent(r.accountId)}">${r.accountId}</a></td>
                    <td>${r.currency}</td>
                    <td class="num">${count(r.checked)}</td>
                    <td class="num">${count(r.mismatches)}</td>
                    <td class="num">${amount(r.amount, r.currency)}</td>
                    <td class="num">${amount(r.atRisk, r.currency)}</td>
                    <td class="num">${usdt(new Decimal(r.atRiskUsdt))}</td>
                  </tr>`,
              ),
            )}
            <h2>Open at risk in USDT</h2>
            ${dataTable(
              html`<th>account</th>
                <th class="num">USDT</th>`,
              [
                ...[...totals.perAccount].map(
                  ([account, v]) =>
                    html`<tr>
                      <td>${account}</td>
                      <td class="num">${usdt(v)}</td>
                    </tr>`,
                ),
                html`<tr>
                  <th>all accounts</th>
                  <td class="num">${usdt(totals.overall)}</td>
                </tr>`,
              ],
            )}
            ${unpriced > 0 ? html`<p class="muted">${count(unpriced)} open cases have no USDT rate yet and are not in the USDT totals.</p>` : null}`
    }`;
  return page({ title: `${date} by account`, session: s, nav: 'days' }, body);
}
