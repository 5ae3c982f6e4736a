import { isRecord } from './row.ts';

/**
 * Errors where the database refused a value (as opposed to being unreachable): a data exception
 * (class 22: bad encoding, numeric overflow), an integrity rule (class 23: a CHECK, NOT NULL or
 * unique constraint) or a program limit (class 54: an index row too large). Such a refusal is about
 * one record and must not stop a batch; anything else (connection lost, lock lost) still must.
 */
export function isValueRefusal(err: unknown): boolean {
  const code = errorField(err, 'code');
  return code !== undefined && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * Why the database refused, without the statement or its parameters: knex puts the whole SQL text
 * in front of the driver's message, which is noise to a person and may hold other orders' values.
 */
export function describeRefusal(err: unknown): string {
  const parts = [`SQLSTATE ${errorField(err, 'code') ?? 'unknown'}`];
  const constraint = errorField(err, 'constraint');
  const column = errorField(err, 'column');
  if (constraint) parts.push(`constraint ${constraint}`);
  if (column) parts.push(`column ${column}`);
  return parts.join(', ');
}

/** A text field the driver sets on its error (code, constraint, column), when there is one. */
function errorField(err: unknown, key: string): string | undefined {
  const v = isRecord(err) ? err[key] : undefined;
  return typeof v === 'string' ? v : undefined;
}
