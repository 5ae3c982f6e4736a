import { displayValue, isNumericKind } from './display.ts';
import { columnLabel, currencyIndex, type Table } from '../tabular/table.ts';

/**
 * A report table as fixed-width text (the e-mail's plain-text part): the same values as the html
 * table (grouped amounts, the currency's decimals, local times), numbers right-aligned.
 */
export function tableText(t: Table, formatTime: (ms: number) => string, opts: { maxRows?: number } = {}): string {
  const cur = currencyIndex(t.columns);
  const shown = opts.maxRows === undefined ? t.rows : t.rows.slice(0, opts.maxRows);
  const cells = shown.map((r) => {
    const currency = cur >= 0 ? (r[cur] as string | null) : null;
    return t.columns.map((c, i) => displayValue(c.kind, r[i], currency, formatTime, c.decimals));
  });
  const header = t.columns.map(columnLabel);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const right = t.columns.map((c) => isNumericKind(c.kind));
  const line = (row: readonly string[], head: boolean) =>
    row
      .map((v, i) => (right[i] && !head ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const more = shown.length < t.rows.length ? [`(${t.rows.length - shown.length} more rows in ${t.name}.csv)`] : [];
  return [line(header, true), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map((r) => line(r, false)), ...more].join('\n');
}
