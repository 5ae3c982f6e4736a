import { UsageError } from '../domain/errors.ts';

/** The database lacks migrations this code needs; nothing was done. */
export class NotMigratedError extends UsageError {
  constructor(
    readonly schema: string,
    readonly pending: readonly string[],
    /** Which database was looked at (describeDatabase), so the fix is applied to the right one. */
    readonly database?: string,
    /** How the database was chosen and how to choose another, when the caller knows. */
    readonly hint?: string,
  ) {
    const which = database ? `${database} is` : `The database schema "${schema}" is`;
    const shown = pending.length > 3 ? `${pending[0]} … ${pending.at(-1)}` : pending.join(', ');
    super(`${which} not migrated (${pending.length} pending: ${shown}); run \`payrecon migrate\` first${hint ? `. ${hint}` : '.'}`);
    this.name = 'NotMigratedError';
  }
}

/** The statements payrecon sends; knex puts the statement before the driver's message. */
const SQL_START =
  /^\s*(select|insert|update|delete|with|begin|commit|rollback|savepoint|release|set|lock|create|alter|drop|truncate|declare|fetch|close|move|show|explain|analyze|vacuum|do|copy)\b/i;

/**
 * The cause of a database error without the statement: knex rewrites the driver's message to
 * "<SQL, possibly several lines, with its values> - <cause>", which puts SQL (and data) where a
 * person looks for "connection terminated" or "timeout". Other messages are returned unchanged.
 */
export function withoutSql(message: string): string {
  if (!SQL_START.test(message)) return message;
  const cut = message.lastIndexOf(' - ');
  return cut < 0 ? message : message.slice(cut + 3);
}
