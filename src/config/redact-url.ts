// Apart from redact.ts, which reads the Config type: config.ts uses this while building the Config.
export const REDACTED = '[redacted]';

/** A libpq key/value password: `password=P` or `password='a b'`. */
const PASSWORD_KEY_VALUE = /(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)/gi;
const SCHEME_AND_SLASHES = /^[a-z][a-z0-9+.-]*:\/\//i;
/** What may follow a colon without an "@" after it: a port, then a path or nothing. */
const PORT_AND_REST = /^\d*(?:[/?#]|$)/;

/**
 * A connection URL with its password replaced, so a DATABASE_URL can be shown. Works on the text,
 * not on a parsed URL: a mistyped value (`postgres:u:pw@h/d`, `u:pw@h/d`, `postgres//u:pw@h`, a
 * libpq `password=` string) parses as something else or not at all, and its password must still go.
 * Whatever sits between the first colon after "scheme://" (the one after the user name) and the last
 * "@" is hidden; without an "@", whatever follows that colon unless it reads as a port.
 */
export function redactUrl(value: string): string {
  const text = value.replace(PASSWORD_KEY_VALUE, `$1${REDACTED}`);
  const start = SCHEME_AND_SLASHES.exec(text)?.[0].length ?? 0;
  const colon = text.indexOf(':', start);
  if (colon < 0) return text;
  const at = text.lastIndexOf('@');
  if (at > colon) return `${text.slice(0, colon + 1)}${REDACTED}${text.slice(at)}`;
  return PORT_AND_REST.test(text.slice(colon + 1)) ? text : `${text.slice(0, colon + 1)}${REDACTED}`;
}
