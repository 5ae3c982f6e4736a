import { EXIT } from '../runtime/exit-codes.ts';

/** The database lacks migrations this code needs; nothing was done. */
export class NotMigratedError extends Error {
  /** Read by the CLI's main(): an unmigrated database is a usage problem, not a failed run. */
  readonly exitCode = EXIT.USAGE;
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
