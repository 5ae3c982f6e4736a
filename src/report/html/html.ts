import { html, type Html } from '../../html/html.ts';
import { groupDigits } from '../../money/group-digits.ts';

const NUMBER = /^-?\d+(\.\d+)?$/;

/** A column is numeric when every non-empty cell is plain decimal text: shown grouped and right-aligned. */
function numericColumns(header: readonly string[], rows: readonly (readonly string[])[]): boolean[] {
  return header.map((_, i) => rows.some((r) => (r[i] ?? '') !== '') && rows.every((r) => (r[i] ?? '') === '' || NUMBER.test(r[i])));
}

export function htmlTable(header: readonly string[], rows: readonly (readonly string[])[]): Html {
  const numeric = numericColumns(header, rows);
  const cell = (tag: 'th' | 'td', v: string, i: number) => {
    const style = `border:1px solid #ccc;padding:2px 6px;white-space:nowrap;text-align:${numeric[i] ? 'right' : 'left'}`;
    const text = numeric[i] ? groupDigits(v) : v;
    return tag === 'th' ? html`<th style="${style}">${text}</th>` : html`<td style="${style}">${text}</td>`;
  };
  const head = html`<tr>
    ${header.map((h, i) => cell('th', h, i))}
  </tr>`;
  const body = rows.map(
    (r) =>
      html`<tr>
        ${r.map((v, i) => cell('td', v, i))}
      </tr> `,
  );
  return html`<table style="border-collapse:collapse;font-family:Arial,sans-serif;font-size:12px;font-variant-numeric:tabular-nums">
    ${head} ${body}
  </table>`;
}

/** A fixed-width text table for the plain-text part. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const numeric = numericColumns(header, rows);
  const shown = rows.map((r) => r.map((v, i) => (numeric[i] ? groupDigits(v ?? '') : (v ?? ''))));
  const widths = header.map((h, i) => Math.max(h.length, ...shown.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[], head = false) =>
    cells
      .map((c, i) => (numeric[i] && !head ? (c ?? '').padStart(widths[i]) : (c ?? '').padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header, true), widths.map((w) => '-'.repeat(w)).join('  '), ...shown.map((r) => line(r))].join('\n');
}
