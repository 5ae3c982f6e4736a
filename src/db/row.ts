/**
 * Reading a row the driver returned, one column at a time, instead of asserting its type: each
 * reader checks the value is what the column holds on both engines (see connect.ts) and otherwise
 * throws naming the column, so a changed query or migration fails where it is read, not three calls later.
 * Each repository maps its rows with these in one function per row type, beside its queries.
 */

/** A row as the driver returns it: nothing known of its values yet. */
export type Row = Readonly<Record<string, unknown>>;

export class RowShapeError extends Error {
  constructor(column: string, expected: string, value: unknown) {
    super(`column ${column}: expected ${expected}, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
    this.name = 'RowShapeError';
  }
}

/** A JSON object (not an array, a Date or null). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** The rows of a knex.raw result (Postgres and PGlite both answer `{ rows }`). */
export function rowsOf(result: unknown): Row[] {
  if (isRecord(result) && Array.isArray(result.rows)) return result.rows.filter(isRecord);
  throw new RowShapeError('rows', 'a query result with rows', result);
}

/** The row of a query that always answers one (an aggregate, an INSERT ... RETURNING of one row). */
export function oneRow(result: unknown): Row {
  const [row] = rowsOf(result);
  if (row) return row;
  throw new RowShapeError('rows', 'one row', result);
}

/** The row count of a knex.raw INSERT, UPDATE or DELETE (both engines answer `{ rowCount }`). */
export function rowCountOf(result: unknown): number {
  if (isRecord(result) && typeof result.rowCount === 'number') return result.rowCount;
  throw new RowShapeError('rowCount', 'a statement result with a row count', result);
}

export function text(r: Row, column: string): string {
  const v = r[column];
  if (typeof v === 'string') return v;
  throw new RowShapeError(column, 'text', v);
}

export function textOrNull(r: Row, column: string): string | null {
  return r[column] == null ? null : text(r, column);
}

/** An int4 (a JS number on both engines). */
export function int(r: Row, column: string): number {
  const v = r[column];
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw new RowShapeError(column, 'an integer', v);
}

export function intOrNull(r: Row, column: string): number | null {
  return r[column] == null ? null : int(r, column);
}

/** An int8 read as a count (text on both engines), as a JS number: counts stay far below 2^53. */
export function count(r: Row, column: string): number {
  const v = r[column];
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  throw new RowShapeError(column, 'a whole number', v);
}

/** A bigserial id as decimal text (int8 is text on both engines; an int4 id is turned into text). */
export function id(r: Row, column: string): string {
  const v = r[column];
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return v;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  throw new RowShapeError(column, 'an id', v);
}

export function idOrNull(r: Row, column: string): string | null {
  return r[column] == null ? null : id(r, column);
}

export function bool(r: Row, column: string): boolean {
  const v = r[column];
  if (typeof v === 'boolean') return v;
  throw new RowShapeError(column, 'a boolean', v);
}

export function date(r: Row, column: string): Date {
  const v = r[column];
  if (v instanceof Date) return v;
  throw new RowShapeError(column, 'a timestamp', v);
}

export function dateOrNull(r: Row, column: string): Date | null {
  return r[column] == null ? null : date(r, column);
}

/** A jsonb object (parsed by the driver). */
export function object(r: Row, column: string): Record<string, unknown> {
  const v = r[column];
  if (isRecord(v)) return v;
  throw new RowShapeError(column, 'a JSON object', v);
}

/** A text[] (or a jsonb array of strings); NULL reads as empty. */
export function texts(r: Row, column: string): string[] {
  const v = r[column];
  if (v == null) return [];
  if (Array.isArray(v) && v.every((e) => typeof e === 'string')) return v;
  throw new RowShapeError(column, 'an array of text', v);
}

/** Text that must be one of `values` (a status, a direction). */
export function oneOf<T extends string>(r: Row, column: string, values: readonly T[]): T {
  const v = r[column];
  const found = values.find((x) => x === v);
  if (found !== undefined) return found;
  throw new RowShapeError(column, `one of ${values.join(', ')}`, v);
}

export function oneOfOrNull<T extends string>(r: Row, column: string, values: readonly T[]): T | null {
  return r[column] == null ? null : oneOf(r, column, values);
}

/** A jsonb object whose values are all text (e.g. stored HTTP headers). */
export function textRecord(r: Row, column: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(object(r, column))) {
    if (typeof v !== 'string') throw new RowShapeError(`${column}.${key}`, 'text', v);
    out[key] = v;
  }
  return out;
}
