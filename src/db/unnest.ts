import type { Knex } from 'knex';

/** One column of a batch written through unnest: its name in `v`, its Postgres type, its value per row. */
export interface UnnestColumn<T> {
  readonly name: string;
  readonly type: string;
  readonly value: (row: T) => unknown;
}

/**
 * A batch as `unnest(?::type[], …) AS v(name, …)` and its bindings: one array parameter per column,
 * whatever the batch size. A multi-row VALUES of 500 rows is 12,500 bind parameters that knex
 * builds and Postgres parses and plans per batch, which cost the job more CPU than the comparison
 * itself; unnest is one parameter per column. The column names and types are the caller's constants.
 */
export function unnestRows<T>(rows: readonly T[], columns: readonly UnnestColumn<T>[]): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `unnest(${columns.map((c) => `?::${c.type}[]`).join(', ')}) AS v(${columns.map((c) => c.name).join(', ')})`,
    bindings: columns.map((c) => rows.map(c.value)) as unknown as Knex.RawBinding[],
  };
}

/** A timestamptz column's value in a batch: ISO text (exact to the millisecond, any zone), or NULL. */
export const timestampOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
