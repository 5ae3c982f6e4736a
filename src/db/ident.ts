/** A double-quoted SQL identifier, for the schema name (configured, never request data). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
