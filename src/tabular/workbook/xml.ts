/**
 * The few pieces of SpreadsheetML text the workbook writer builds by hand: column letters and
 * escaped cell text. Kept apart so the per-cell code stays a string concatenation.
 */

const letters: string[] = [];
/** Column letters of a 0-based index: 0 -> A, 25 -> Z, 26 -> AA. */
export function columnName(index: number): string {
  let name = letters[index];
  if (name === undefined) {
    name = '';
    for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
    letters[index] = name;
  }
  return name;
}

// What XML or a spreadsheet would change: markup characters, CR (XML turns CRLF into LF),
// control characters XML 1.0 cannot hold at all, and text that looks like the spreadsheet's own
// _xHHHH_ escape (which a reader would decode).
const NEEDS_ESCAPE = /[&<>\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|_x[0-9A-Fa-f]{4}_/;
const ESCAPES = /[&<>\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|_(?=x[0-9A-Fa-f]{4}_)/g;

function escapeOne(ch: string): string {
  switch (ch) {
    case '&':
      return '&amp;';
    case '<':
      return '&lt;';
    case '>':
      return '&gt;';
    case '\r':
      return '&#13;';
    case '_':
      return '_x005F_';
    default:
      return `_x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
  }
}

/** Element text: escaped when needed (rarely), so the common cell costs one regex test. */
export function xmlText(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPES, escapeOne) : text;
}

/** Attribute value in double quotes. */
export function xmlAttr(text: string): string {
  return xmlText(text).replaceAll('"', '&quot;');
}

/** An inline string's content: leading or trailing spaces kept (a reader may trim them otherwise). */
export function inlineString(text: string): string {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  const preserve = first <= 32 || last <= 32;
  return preserve ? `<is><t xml:space="preserve">${xmlText(text)}</t></is>` : `<is><t>${xmlText(text)}</t></is>`;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
export const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
export const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
