import { parse } from 'lossless-json';

/** A JSON number as its exact source text, so the sandbox can tell `100.5` from `"100.5"` and keep every digit. */
export class NumText {
  constructor(readonly text: string) {}
}

/** Parses a request body; throws SyntaxError on malformed JSON. */
export function parseRequestJson(text: string): unknown {
  // Most requests (fetch, balance, rate) hold no number at all: the native parser is exact for those and much faster.
  if (!NUMBER_TOKEN.test(text)) return JSON.parse(text);
  return parse(text, undefined, (value: string) => new NumText(value));
}

/** A value position followed by a number (over-matches inside strings, which only costs the fast path). */
const NUMBER_TOKEN = /[:[,]\s*-?\d/;

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof NumText);
