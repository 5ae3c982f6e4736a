/**
 * Plain decimal text ("-1234.50") read by character code: a report sums and formats a million
 * amounts, and a regular expression's match array and substrings per value were a large part of
 * what it allocated. Nothing here allocates.
 */
export interface DecimalText {
  negative: boolean;
  /** Index of the first integer digit, and of the point (the text's length when it has none). */
  intStart: number;
  point: number;
  /** Digits after the point as written ("12." has a point and none), and without trailing zeros. */
  fractionDigits: number;
  significantFractionDigits: number;
}

const ZERO = 48;
const NINE = 57;
const MINUS = 45;
const POINT = 46;

/**
 * The parts of `-?\d+(\.\d*)?`, or null for any other text. The result is one object reused by
 * every call (a million amounts, no object each): read it before the next scan.
 */
export function scanDecimal(text: string): DecimalText | null {
  const length = text.length;
  const negative = length > 0 && text.charCodeAt(0) === MINUS;
  const intStart = negative ? 1 : 0;
  let i = intStart;
  while (i < length && isDigit(text.charCodeAt(i))) i++;
  if (i === intStart) return null;
  const point = i;
  let significantEnd = i + 1;
  if (i < length) {
    if (text.charCodeAt(i) !== POINT) return null;
    for (i += 1; i < length; i++) {
      const c = text.charCodeAt(i);
      if (!isDigit(c)) return null;
      if (c !== ZERO) significantEnd = i + 1;
    }
  }
  SCAN.negative = negative;
  SCAN.intStart = intStart;
  SCAN.point = point;
  SCAN.fractionDigits = point === length ? 0 : length - point - 1;
  SCAN.significantFractionDigits = point === length ? 0 : significantEnd - point - 1;
  return SCAN;
}

const SCAN: DecimalText = { negative: false, intStart: 0, point: 0, fractionDigits: 0, significantFractionDigits: 0 };

/**
 * The value as a whole number of 10^-scale units, exact: null when that number would have more
 * than 15 digits (the caller takes BigInt). The text must have no more significant decimals than scale.
 */
export function smallScaledValue(text: string, d: DecimalText, scale: number): number | null {
  if (d.point - d.intStart + scale > 15) return null;
  let v = 0;
  for (let i = d.intStart; i < d.point; i++) v = v * 10 + (text.charCodeAt(i) - ZERO);
  const end = d.point + 1 + d.significantFractionDigits;
  for (let i = d.point + 1; i < end; i++) v = v * 10 + (text.charCodeAt(i) - ZERO);
  for (let k = d.significantFractionDigits; k < scale; k++) v *= 10;
  return d.negative ? -v : v;
}

/** The digits of the value at `scale` decimals, as text for BigInt (the long values smallScaledValue refuses). */
export function scaledDigits(text: string, d: DecimalText, scale: number): string {
  const fraction = text.slice(d.point + 1, d.point + 1 + d.significantFractionDigits);
  return text.slice(d.intStart, d.point) + fraction.padEnd(scale, '0');
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}
