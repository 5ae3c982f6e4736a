import { isDecimalText } from '../money/decimal.ts';

/** Guards the write path: amounts must arrive as decimal text, so no JS number can slip into numeric. */
export function decimalOrNull(value: string | null | undefined, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || !isDecimalText(value)) {
    throw new TypeError(`${field}: expected decimal text such as "100.50", got ${JSON.stringify(value)}`);
  }
  return value;
}

export function decimal(value: string, field: string): string {
  const v = decimalOrNull(value, field);
  if (v === null) throw new TypeError(`${field}: required`);
  return v;
}
