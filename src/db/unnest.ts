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

/**
 * A one-dimensional Postgres array literal of each row's value: NULL bare, every other element in
 * double quotes with `"` and `\` escaped, so any text (commas, braces, "NULL", spaces) reads back as itself.
 * A value that is not text, a number or null (undefined: a field the row lacks) is refused, as knex
 * refuses an undefined binding, instead of going in as NULL or as some text.
 */
export function arrayLiteral<T>(rows: readonly T[], value: (row: T) => UnnestValue, column = 'value'): string {
  // Each element's text (escaped) in a list joined once: a string built by += per element left a
  // rope of thousands of pieces per column for the driver to flatten, and as many objects to collect.
  const parts = new Array<string>(rows.length);
  let nulls: boolean[] | undefined;
  for (let i = 0; i < rows.length; i++) {
    const v: unknown = value(rows[i]);
    let text: string;
    if (v === null) {
      (nulls ??= new Array<boolean>(rows.length).fill(false))[i] = true;
      parts[i] = '';
      continue;
    } else if (typeof v === 'string') {
      text = v;
    } else if (typeof v === 'number') {
      text = String(v);
    } else {
      throw new TypeError(`${column} of row ${i}: expected text, a number or null, got ${v === undefined ? 'undefined' : typeof v}`);
    }
    // indexOf, not a regular expression: this runs for every column of every row of a batch.
    parts[i] = text.indexOf('"') === -1 && text.indexOf('\\') === -1 ? text : text.replace(/["\\]/g, '\\$&');
  }
  if (rows.length === 0) return '{}';
  if (nulls === undefined) return `{"${parts.join('","')}"}`;
  for (let i = 0; i < parts.length; i++) parts[i] = nulls[i] ? 'NULL' : `"${parts[i]}"`;
  return `{${parts.join(',')}}`;
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
