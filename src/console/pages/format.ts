import { DateTime } from 'luxon';
import { groupedAmount } from '../../recon/format.ts';
import { isCurrency } from '../../money/decimal.ts';
import { groupDigits } from '../../money/group-digits.ts';
import { html, type Html } from '../../html/html.ts';
import type { CsvPreview } from '../report-files.ts';
import { caseLink, orderLink } from './links.ts';

/** "2026-11-22 18:05" in the business time zone; "-" for none. */
export function at(d: Date | null | undefined, zone: string): string {
  return d ? DateTime.fromJSDate(d, { zone }).toFormat('yyyy-MM-dd HH:mm') : '-';
}

/** Thousands separators for a whole number. */
export function count(n: number | string): string {
  return groupDigits(String(n));
}

/** An amount as the workbook shows it: grouped thousands, the currency's decimals; text as-is when unparseable. */
export function amount(value: string | null | undefined, currency: string): string {
  if (value === null || value === undefined || value === '') return '';
  return isCurrency(currency) ? groupedAmount(value, currency) : value;
}

const IDENTIFIER = /(^id$|_id$|_ids$|ref$|utr|version|date|_at$|time|hash|code)/i;
const DECIMAL = /^-?\d+\.\d+$/;
const INTEGER = /^-?\d+$/;

/**
 * A report CSV as an html table. Amount cells (decimal text) are grouped with the row's currency's
 * decimals, counts grouped; both right-aligned. Identifier columns stay text.
 */
export function csvTable(preview: CsvPreview): Html {
  const cur = preview.columns.findIndex((c) => c === 'currency');
  const numeric = preview.columns.map((c) => !IDENTIFIER.test(c));
  const cell = (value: string, i: number, row: string[]) => {
    const name = preview.columns[i];
    // Refs and case ids lead to their order and case pages (a whole ref lands on its order).
    if (value && (name === 'merchant_ref' || name === 'transaction_ref')) return html`<td>${orderLink(value)}</td>`;
    if (value && name === 'case_id')
      return html`<td>${value.split(/\s+/).map((id) => (/^\d+$/.test(id) ? html`${caseLink(id)} ` : `${id} `))}</td>`;
    if (numeric[i] && DECIMAL.test(value)) return html`<td class="num">${amount(value, cur >= 0 ? row[cur] : '')}</td>`;
    if (numeric[i] && INTEGER.test(value)) return html`<td class="num">${count(value)}</td>`;
    return html`<td>${value}</td>`;
  };
  const head = preview.columns.map((c, i) => {
    const isNum = numeric[i] && preview.rows.some((r) => DECIMAL.test(r[i] ?? '') || INTEGER.test(r[i] ?? ''));
    return html`<th class="${isNum ? 'num' : ''}">${c.replace(/_/g, ' ')}</th>`;
  });
  if (preview.rows.length === 0) return html`<p class="muted">No rows.</p>`;
  return html`${dataTable(
    head,
    preview.rows.map(
      (r) =>
        html`<tr>
          ${r.map((v, i) => cell(v, i, r))}
        </tr>`,
    ),
  )}
  ${preview.truncated ? html`<p class="muted">The first ${preview.rows.length} rows; download the file for all of them.</p>` : null}`;
}

/** A console table: its header cells and its rows (each a <tr>), in a box that scrolls sideways on a narrow screen. */
export function dataTable(head: Html | Html[], rows: Html | Html[]): Html {
  return html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          ${head}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
