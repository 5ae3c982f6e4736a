import type { Knex } from 'knex';

/** What a column of a batch may hold: text (amounts as decimal text, times as ISO text), an integer, or NULL. */
export type UnnestValue = string | number | null;

/** One column of a batch written through unnest: its name in `v`, its Postgres type, its value per row. */
export interface UnnestColumn<T> {
  readonly name: string;
  readonly type: string;
  readonly value: (row: T) => UnnestValue;
}

/**
 * A batch as `unnest(?::type[], …) AS v(name, …)` and its bindings: one array parameter per column,
 * whatever the batch size. A multi-row VALUES of 500 rows is 12,500 bind parameters that knex
 * builds and Postgres parses and plans per batch, which cost the job more CPU than the comparison
 * itself; unnest is one parameter per column. The column names and types are the caller's constants.
 * Each column travels as its array literal (arrayLiteral), one string: the text pg would build from a
 * JS array, without pg escaping and knex inspecting every element of every column one by one.
 */
export function unnestRows<T>(rows: readonly T[], columns: readonly UnnestColumn<T>[]): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `unnest(${columns.map((c) => `?::${c.type}[]`).join(', ')}) AS v(${columns.map((c) => c.name).join(', ')})`,
    bindings: columns.map((c) => arrayLiteral(rows, c.value, c.name)),
  };
}

const NEEDS_ESCAPE = /["\\]/;

/**
 * A one-dimensional Postgres array literal of each row's value: NULL bare, every other element in
 * double quotes with `"` and `\` escaped, so any text (commas, braces, "NULL", spaces) reads back as itself.
 * A value that is not text, a number or null (undefined: a field the row lacks) is refused, as knex
 * refuses an undefined binding, instead of going in as NULL or as some text.
 */
export function arrayLiteral<T>(rows: readonly T[], value: (row: T) => UnnestValue, column = 'value'): string {
  let out = '{';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out += ',';
    const v: unknown = value(rows[i]);
    let text: string;
    if (v === null) {
      out += 'NULL';
      continue;
    } else if (typeof v === 'string') {
      text = v;
    } else if (typeof v === 'number') {
      text = String(v);
    } else {
      throw new TypeError(`${column} of row ${i}: expected text, a number or null, got ${v === undefined ? 'undefined' : typeof v}`);
    }
    out += NEEDS_ESCAPE.test(text) ? `"${text.replace(/["\\]/g, '\\$&')}"` : `"${text}"`;
  }
  return `${out}}`;
}

// A batch's rows mostly carry the same instant (the batch's clock): its text is computed once.
let lastTime = Number.NaN;
let lastText = '';

/** A timestamptz value in a batch: ISO text, exact to the millisecond in any zone. */
export function timestampText(d: Date): string {
  const t = d.getTime();
  if (t !== lastTime) {
    lastText = d.toISOString();
    lastTime = t;
  }
  return lastText;
}

/** A timestamptz column's value in a batch: ISO text, or NULL. */
export const timestampOrNull = (d: Date | null | undefined): string | null => (d ? timestampText(d) : null);
