import { escapeHtml } from '../../html/html.ts';
import { displayValue, isNumericKind } from '../display.ts';
import { columnLabel, currencyIndex, type Table } from '../table.ts';

const CELL = 'border:1px solid #d0d4dc;padding:3px 8px;white-space:nowrap';
const HEAD = `${CELL};background:#e8ecf2;font-weight:600`;

/**
 * A report table as HTML with inline styles (mail clients drop <style> blocks): amounts grouped
 * and right-aligned, a row whose first cell starts with "total" in bold, notes under the table.
 */
export function tableHtml(t: Table, formatTime: (ms: number) => string, opts: { maxRows?: number; moreText?: string } = {}): string {
  const cur = currencyIndex(t.columns);
  const align = t.columns.map((c) => (isNumericKind(c.kind) ? 'right' : 'left'));
  const head = `<tr>${t.columns.map((c, i) => `<th style="${HEAD};text-align:${align[i]}">${escapeHtml(columnLabel(c))}</th>`).join('')}</tr>`;
  const shown = opts.maxRows === undefined ? t.rows : t.rows.slice(0, opts.maxRows);
  const body = shown.map((r) => {
    const currency = cur >= 0 ? (r[cur] as string | null) : null;
    const total = typeof r[0] === 'string' && r[0].toLowerCase().startsWith('total');
    const cells = t.columns.map((c, i) => {
      const text = displayValue(c.kind, r[i], currency, formatTime, c.decimals);
      return `<td style="${CELL};text-align:${align[i]}${total ? ';font-weight:600' : ''}">${escapeHtml(text)}</td>`;
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  const more =
    shown.length < t.rows.length
      ? `<p style="color:#555;font-size:12px">${escapeHtml(opts.moreText ?? `${t.rows.length - shown.length} more rows in ${t.name}.csv`)}</p>`
      : '';
  const notes = (t.notes ?? []).map((n) => `<p style="color:#555;font-size:12px;margin:4px 0">${escapeHtml(n)}</p>`).join('\n');
  return [
    `<table style="border-collapse:collapse;font-family:'DejaVu Sans',Arial,sans-serif;font-size:12px;font-variant-numeric:tabular-nums">`,
    `<thead>${head}</thead>`,
    `<tbody>${body.join('\n')}</tbody>`,
    '</table>',
    more,
    notes,
  ]
    .filter(Boolean)
    .join('\n');
}
