/**
 * Spreadsheet formula-injection guard for text cells. Excel, LibreOffice and
 * Google Sheets evaluate a cell that starts with one of these (full-width forms
 * included, which some locales normalise), so such a cell gets a leading quote.
 * Amount columns are not passed through here: "-12.50" must stay a number.
 */
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\n', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

export function neutralizeCell(value: string): string {
  return value.length > 0 && TRIGGERS.has(value[0]) ? `'${value}` : value;
}

/** A nullable text value as a CSV cell: null is an empty cell. */
export function textCell(value: string | null | undefined): string {
  return value === null || value === undefined ? '' : neutralizeCell(value);
}
