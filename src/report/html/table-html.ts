import { html, type Html } from '../../html/html.ts';
import { displayValue, isNumericKind } from '../display.ts';
import { columnLabel, currencyIndex, type Table } from '../../tabular/table.ts';
import { moneyFirstOrder } from '../../tabular/workbook/column-order.ts';

const CELL = 'border:1px solid #d0d4dc;padding:3px 8px;white-space:nowrap';
const HEAD = `${CELL};background:#e8ecf2;font-weight:600`;

/**
 * A report table as HTML with inline styles (mail clients drop <style> blocks): the money first
 * (as in the workbook, so it is on screen without scrolling sideways), amounts grouped and
 * right-aligned, a row whose first cell starts with "total" in bold, notes under the table.
 */
export function tableHtml(table: Table, formatTime: (ms: number) => string, opts: { maxRows?: number; moreText?: string } = {}): Html {
  const order = moneyFirstOrder(table.columns);
  const t: Table = { ...table, columns: order.map((i) => table.columns[i]), rows: table.rows.map((r) => order.map((i) => r[i])) };
  const cur = currencyIndex(t.columns);
  const align = t.columns.map((c) => (isNumericKind(c.kind) ? 'right' : 'left'));
  const shown = opts.maxRows === undefined ? t.rows : t.rows.slice(0, opts.maxRows);
  // The keys come first: a totals row says so in one of them (currency or direction).
  const total = (r: Table['rows'][number]) => r.slice(0, 3).some((v) => typeof v === 'string' && v.toLowerCase().startsWith('total'));
  // The templates are the markup as sent: prettier would reflow the HTML inside them.
  // prettier-ignore
  const body = shown.map((r) => {
    const currency = cur >= 0 ? (r[cur] as string | null) : null;
    const bold = total(r) ? ';font-weight:600' : '';
    return html`<tr>${t.columns.map(
      (c, i) => html`<td style="${CELL};text-align:${align[i]}${bold}">${displayValue(c.kind, r[i], currency, formatTime, c.decimals)}</td>`,
    )}</tr>\n`;
  });
  // prettier-ignore
  const more =
    shown.length < t.rows.length
      ? html`<p style="color:#555;font-size:12px">${opts.moreText ?? `${t.rows.length - shown.length} more rows in ${t.name}.csv`}</p>\n`
      : null;
  // prettier-ignore
  const notes = (t.notes ?? []).map((n) => html`<p style="color:#555;font-size:12px;margin:4px 0">${n}</p>\n`);
  // prettier-ignore
  return html`<table style="border-collapse:collapse;font-family:'DejaVu Sans',Arial,sans-serif;font-size:12px;font-variant-numeric:tabular-nums">
<thead><tr>${t.columns.map((c, i) => html`<th style="${HEAD};text-align:${align[i]}">${columnLabel(c)}</th>`)}</tr></thead>
<tbody>${body}</tbody>
</table>
${more}${notes}`;
}
