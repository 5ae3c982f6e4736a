/** A plain text table for terminal summaries; numbers right-aligned. */
export function renderTable(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => cells.length > 0 && cells.every((r) => /^-?[\d,]+(\.\d+)?$/.test(r[i] ?? '')));
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n') + '\n';
}
