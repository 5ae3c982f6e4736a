/**
 * timestamptz text as Postgres sends it to a UTC session ('2026-11-28 00:31:18.123456+00'), read
 * without a regular expression: a run reads six per order. Anything else (another offset, a year
 * before 1000, BC, infinity) goes to `fallback`, pg's own parser, which this matches for the rest:
 * the fraction truncated to the millisecond.
 */
export function parseTimestamptz(text: string, fallback: (text: string) => unknown): unknown {
  const n = text.length;
  // 'YYYY-MM-DD HH:MM:SS' (19), an optional fraction of 1 to 6 digits after '.', then '+00'.
  if (n < 22 || n > 29 || n === 23 || text.charCodeAt(n - 3) !== 43 || text.charCodeAt(n - 2) !== 48 || text.charCodeAt(n - 1) !== 48) {
    return fallback(text);
  }
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  ) {
    return fallback(text);
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  let ms = 0;
  if (n > 22) {
    if (text.charCodeAt(19) !== 46) return fallback(text);
    const fraction = digits(text, 20, n - 3);
    if (fraction < 0) return fallback(text);
    // The first three digits, as milliseconds ('.5' is 500; '.123456' is 123).
    const places = n - 23;
    ms = places >= 3 ? digits(text, 20, 23) : fraction * (places === 1 ? 100 : 10);
  }
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return fallback(text);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
}

/** The decimal value of text[from, to), all digits; -1 when any is not. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}
