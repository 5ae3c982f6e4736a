// Apart from redact.ts, which reads the Config type: config.ts uses this while building the Config.
export const REDACTED = '[redacted]';

/** A URL with its password replaced, so a DATABASE_URL can be shown. */
export function redactUrl(value: string): string {
  try {
    const u = new URL(value);
    if (!u.password) return u.toString();
    // Set through a plain marker: the URL setter would percent-encode the brackets of REDACTED.
    u.password = 'redacted';
    return u.toString().replace(':redacted@', `:${REDACTED}@`);
  } catch {
    // Not parseable (a typo in it): still never show what sits between "user:" and "@".
    return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:)[^@\s]*@/i, `$1${REDACTED}@`);
  }
}
