const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

export function htmlTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (tag: string, v: string) =>
    `<${tag} style="border:1px solid #ccc;padding:2px 6px;text-align:left">${escapeHtml(v)}</${tag}>`;
  const head = `<tr>${header.map((h) => cell('th', h)).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((v) => cell('td', v)).join('')}</tr>`).join('\n');
  return `<table style="border-collapse:collapse;font-family:monospace;font-size:12px">\n${head}\n${body}\n</table>`;
}

/** A fixed-width text table for the plain-text part. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
