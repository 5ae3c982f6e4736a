/**
 * Errors where the database refused a value (as opposed to being unreachable): a data exception
 * (class 22: bad encoding, numeric overflow), an integrity rule (class 23: a CHECK, NOT NULL or
 * unique constraint) or a program limit (class 54: an index row too large). Such a refusal is about
 * one record and must not stop a batch; anything else (connection lost, lock lost) still must.
 */
export function isValueRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * Why the database refused, without the statement or its parameters: knex puts the whole SQL text
 * in front of the driver's message, which is noise to a person and may hold other orders' values.
 */
export function describeRefusal(err: unknown): string {
  const e = err as { code?: string; constraint?: string; column?: string } | null;
  const parts = [`SQLSTATE ${e?.code ?? 'unknown'}`];
  if (e?.constraint) parts.push(`constraint ${e.constraint}`);
  if (e?.column) parts.push(`column ${e.column}`);
  return parts.join(', ');
}
