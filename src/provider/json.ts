import { parse } from 'lossless-json';

/**
 * Parses JSON keeping every number as its exact source text, so amounts such as
 * 12345678901234.56 or 0.1 never pass through a binary float.
 */
export function parseLossless(text: string): unknown {
  return parse(text, undefined, (value: string) => value);
}

/** Serialises a request body; values that are decimal text for amounts are sent as JSON numbers. */
export function stringifyBody(body: Record<string, unknown>, numericKeys: ReadonlySet<string> = AMOUNT_KEYS): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    const json = numericKeys.has(key) && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? value : JSON.stringify(value);
    parts.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${parts.join(',')}}`;
}

export const AMOUNT_KEYS: ReadonlySet<string> = new Set([
  'amount',
  'paidAmount',
  'fee',
  'available',
  'pending',
  'held',
  'credit',
  'deposit',
  'withdraw',
]);

/**
 * Parses JSON keeping numbers as LosslessNumber (exact text), so a validator can still tell
 * a JSON number from a string (parseLossless turns both into strings).
 */
export function parseLosslessTyped(text: string): unknown {
  return parse(text);
}
